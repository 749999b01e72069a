import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { insertTask, pendingRunRow, seedTenant } from '../../../../../test/cluster/support/seed';
import { RunEntity } from '../../entities/run.entity';
import { attemptTimeline } from '@baton/domain';
import { findUnsettledWithdrawal, findUnsettledWithdrawals, recordRanWithdrawnFire, settleWithdrawal } from './settle-withdrawal';

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
    expect(await read()).toMatchObject({ withdrawal: 'STARTED', fireKey: `s:${T}`, error: 'ran', startedAt: T + 2, finishedAt: T + 50, finishedClock: 'executor' });
  });

  it("a fire settled as run with no times (an abort's RUNNING answer) takes its executor's start and end from its outcome after; its timeline tells a run that started at its instant", async () => {
    const report = { runId, tenantId: 'acme', attempt: 1, startedAt: T + 3, endedAt: T + 900, now: T + 1_000 };
    // Unsettled, or settled unstarted: not a run to record.
    expect(await recordRanWithdrawnFire(db.dataSource.manager, report)).toBe(false);
    expect(await settleWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme', attempt: 1, settled: 'STARTED', error: 'ran', now: T + 10 })).toBe(true);
    expect(await read()).toMatchObject({ startedAt: null, finishedAt: T - 4_000, finishedClock: null });
    expect(await recordRanWithdrawnFire(db.dataSource.manager, { ...report, attempt: 2 })).toBe(false);
    expect(await recordRanWithdrawnFire(db.dataSource.manager, report)).toBe(true);
    const row = await read();
    expect(row).toMatchObject({ state: 'CANCELLED', startedAt: T + 3, finishedAt: T + 900, finishedClock: 'executor' });
    expect(attemptTimeline(row).map((e) => [e.step, e.at, e.clock, e.outOfOrder])).toEqual([
      ['SCHEDULED', T, 'engine', false],
      ['DISPATCHED', null, 'engine', false],
      ['ACCEPTED', null, 'engine', false],
      ['STARTED', T + 3, 'executor', false],
      ['FINISHED', T + 900, 'executor', false],
    ]);
  });

  it('a fire settled unstarted keeps its withdrawal as its end, on the engine clock, before its instant', async () => {
    expect(await settleWithdrawal(db.dataSource.manager, { runId, tenantId: 'acme', attempt: 1, settled: 'NOT_STARTED', error: 'dropped', now: T + 10 })).toBe(true);
    expect(await recordRanWithdrawnFire(db.dataSource.manager, { runId, tenantId: 'acme', attempt: 1, startedAt: null, endedAt: T + 20, now: T + 30 })).toBe(false);
    const row = await read();
    expect(attemptTimeline(row).map((e) => [e.step, e.at, e.clock, e.outOfOrder])).toEqual([
      ['SCHEDULED', T, 'engine', false],
      ['DISPATCHED', null, 'engine', false],
      ['ACCEPTED', null, 'engine', false],
      ['STARTED', null, 'executor', false],
      ['FINISHED', T - 4_000, 'engine', false],
    ]);
  });
});
