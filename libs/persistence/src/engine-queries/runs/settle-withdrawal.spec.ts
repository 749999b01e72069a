import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { insertTask, pendingRunRow, seedTenant } from '../../../../../test/cluster/support/seed';
import { RunEntity } from '../../entities/run.entity';
import { findUnsettledWithdrawal, findUnsettledWithdrawals, settleWithdrawal } from './settle-withdrawal';

const T = 1_790_000_000_000;

describe.each(TEST_DATABASES)('settling a withdrawn fire its executor may hold (settleWithdrawal) on %s', (kind) => {
  const db = useTestDatabase(kind);
  let runId: number;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const taskId = await insertTask(db.dataSource, tenant, { name: 'rate', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 } });
    const row = { ...pendingRunRow(tenant, taskId, T, `s:${T}`, { now: T - 5_000 }), state: 'CANCELLED' as const, withdrawal: 'UNSETTLED' as const, error: 'Cancelled: the task was edited before this fire; it runs again as the task now says', finishedAt: T - 4_000 };
    runId = Number((await db.dataSource.getRepository(RunEntity).insert(row)).identifiers[0].id);
  });

  const read = () => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: runId });

  it('settles once: never started frees the fire key for the instant; a second word moves nothing', async () => {
    expect(await findUnsettledWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme' })).toMatchObject({ runId, scheduledAt: T, attempt: 1, executor: null });
    expect((await findUnsettledWithdrawals(db.dataSource.manager, { groups: ['default'], instantBefore: T + 1, limit: 10 })).map((f) => f.runId)).toEqual([runId]);
    expect(await findUnsettledWithdrawals(db.dataSource.manager, { groups: ['default'], instantBefore: T, limit: 10 })).toEqual([]);
    expect(await findUnsettledWithdrawals(db.dataSource.manager, { groups: ['other'], instantBefore: T + 1, limit: 10 })).toEqual([]);

    const settle = (settled: 'NOT_STARTED' | 'STARTED', attempt = 1) => settleWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme', attempt, settled, error: settled, now: T + 10 });
    expect(await settle('NOT_STARTED', 2)).toBe(false);
    expect(await settle('NOT_STARTED')).toBe(true);
    expect(await settle('STARTED')).toBe(false);
    expect(await read()).toMatchObject({ state: 'CANCELLED', withdrawal: 'NOT_STARTED', fireKey: `w:${runId}`, error: 'NOT_STARTED', startedAt: null });
    expect(await findUnsettledWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme' })).toBeNull();
  });

  it('started: keeps the fire key (the instant ran) and takes the start and a later end its executor reported; another tenant moves nothing', async () => {
    expect(await settleWithdrawal(db.dataSource.manager, { runId, tenantId: 'other', attempt: 1, settled: 'STARTED', error: 'x', now: T + 10 })).toBe(false);
    expect(await settleWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme', attempt: 1, settled: 'STARTED', error: 'ran', startedAt: T + 2, endedAt: T + 50, now: T + 60 })).toBe(true);
    expect(await read()).toMatchObject({ withdrawal: 'STARTED', fireKey: `s:${T}`, error: 'ran', startedAt: T + 2, finishedAt: T + 50 });
  });
});
