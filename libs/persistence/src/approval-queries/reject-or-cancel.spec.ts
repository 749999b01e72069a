import type { DataSource, QueryRunner } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { REJECTION_APPLIED_WITHIN_MS } from '@baton/domain';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { untilLockWaits } from '../../../../test/support/lock-waits';
import { cancelRun } from '../console-queries';
import { RunEntity } from '../entities';
import { decideRunApproval } from './decide-run-approval';

const T = 1_732_240_000_000;
const DEADLINE = T + 3_600_000;

/** A run waiting for approval, its approval undecided (onTimeout REJECT at DEADLINE). */
async function waitingRun(ds: DataSource): Promise<number> {
  const repo = ds.getRepository(RunEntity);
  const { id } = await repo.save(
    repo.create({ tenantId: 'acme', taskId: 1, engineGroup: 'default', state: 'APPROVAL_WAIT', cause: 'DEPENDENCY', fireKey: 'f:1', params: {}, scheduledAt: T, dueAt: T, createdAt: T, updatedAt: T }),
  );
  await ds.query(`INSERT INTO run_approvals (run_id, tenant_id, role, users, on_timeout, deadline_at, due_at, created_at) VALUES (?, 'acme', 'TENANT_ADMIN', '[]', 'REJECT', ?, ?, ?)`, [id, DEADLINE, DEADLINE, T]);
  return id;
}

const reject = (manager: QueryRunner['manager'], runId: number, now = T + 10) =>
  decideRunApproval(manager, { runId, tenantId: 'acme', decision: 'REJECT', decidedBy: 'alice', comment: null, dueAt: now, now });
const cancel = (manager: QueryRunner['manager'], runId: number, now = T + 10) => cancelRun(manager, { runId, tenantId: 'acme', now });

/**
 * A rejection and a cancel of one waiting run: whichever commits first wins, the other changes
 * nothing — the guard of each is in its update, so it holds between two consoles, and at the
 * console's isolation (the server's default) a row committed after the transaction's first read.
 */
describe.each(TEST_DATABASES)('a rejection or a cancel, never both, on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());
  const state = async (runId: number) => ((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: runId })).state);
  const decision = async (runId: number) => ((await db.dataSource.query('SELECT decision FROM run_approvals WHERE run_id = ?', [runId])) as Array<{ decision: string | null }>)[0].decision;

  it('a decided rejection is not cancelled; a cancelled run is not rejected; a rejection by the deadline is not cancelled from its instant on', async () => {
    const rejected = await waitingRun(db.dataSource);
    expect(await reject(db.dataSource.manager, rejected)).toBe(true);
    expect(await cancel(db.dataSource.manager, rejected)).toBe(false);
    expect([await state(rejected), await decision(rejected)]).toEqual(['APPROVAL_WAIT', 'REJECT']);

    await db.clear();
    const cancelled = await waitingRun(db.dataSource);
    expect(await cancel(db.dataSource.manager, cancelled)).toBe(true);
    expect(await reject(db.dataSource.manager, cancelled)).toBe(false);
    expect(await decideRunApproval(db.dataSource.manager, { runId: cancelled, tenantId: 'acme', decision: 'REJECT', decidedBy: null, comment: null, dueAt: null, now: DEADLINE })).toBe(false);
    expect([await state(cancelled), await decision(cancelled)]).toEqual(['CANCELLED', null]);

    await db.clear();
    const late = await waitingRun(db.dataSource);
    expect(await cancel(db.dataSource.manager, late, DEADLINE)).toBe(false);
    expect(await cancel(db.dataSource.manager, late, DEADLINE - 1)).toBe(true);
  });

  it('a rejection no engine has carried out within REJECTION_APPLIED_WITHIN_MS (none serves the group) no longer keeps a cancel from ending the run', async () => {
    const rejected = await waitingRun(db.dataSource);
    expect(await reject(db.dataSource.manager, rejected)).toBe(true);
    expect(await cancel(db.dataSource.manager, rejected, T + 10 + REJECTION_APPLIED_WITHIN_MS - 1)).toBe(false);
    expect(await cancel(db.dataSource.manager, rejected, T + 10 + REJECTION_APPLIED_WITHIN_MS)).toBe(true);
    expect([await state(rejected), await decision(rejected)]).toEqual(['CANCELLED', 'REJECT']);

    await db.clear();
    const late = await waitingRun(db.dataSource);
    expect(await cancel(db.dataSource.manager, late, DEADLINE + REJECTION_APPLIED_WITHIN_MS - 1)).toBe(false);
    expect(await cancel(db.dataSource.manager, late, DEADLINE + REJECTION_APPLIED_WITHIN_MS)).toBe(true);
    expect(await state(late)).toBe('CANCELLED');
  });

  it.skipIf(kind !== 'mysql')('racing: the one that commits second sees the first, though its transaction read the row before', async () => {
    for (const first of ['reject', 'cancel'] as const) {
      await db.clear();
      const runId = await waitingRun(db.dataSource);
      const [a, b] = [db.dataSource.createQueryRunner(), db.dataSource.createQueryRunner()];
      try {
        await Promise.all([a.connect(), b.connect()]);
        await a.startTransaction();
        await b.startTransaction();
        // The second reads the run first (as the console's commands do), so its snapshot is older than the first's commit.
        await b.query('SELECT state FROM runs WHERE id = ?', [runId]);
        await b.query('SELECT decision FROM run_approvals WHERE run_id = ?', [runId]);
        expect(await (first === 'reject' ? reject(a.manager, runId) : cancel(a.manager, runId))).toBe(true);
        const second = first === 'reject' ? cancel(b.manager, runId) : reject(b.manager, runId);
        await untilLockWaits(db.dataSource, 1);
        await a.commitTransaction();
        expect(await second, `${first} first`).toBe(false);
        await b.commitTransaction();
      } finally {
        for (const runner of [a, b]) {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          await runner.release();
        }
      }
      expect([await state(runId), await decision(runId)]).toEqual(first === 'reject' ? ['APPROVAL_WAIT', 'REJECT'] : ['CANCELLED', null]);
    }
  });
});
