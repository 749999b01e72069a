import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import {
  deferRunDispatch,
  extendLeases,
  findOverdueRuns,
  finishRunAttempt,
  inTransaction,
  lockTaskForRuns,
  moveTenantGroup,
  releaseRuns,
  retryRunAttempt,
  RunEntity,
  TenantEntity,
} from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { claimSide, insertRun, insertTask, T0, testConfig } from '../testing/engine-test-kit';

/** The engine that held the runs when the tenant moved: it serves the tenant's old group only. */
const OLD_HOLDER = 'engine-default';

/**
 * A tenant moved to another engine group (the operator's PATCH, moveTenantGroup and the tenant's
 * row in one transaction) while an engine of its old group held some of its runs: what that engine
 * hands back afterwards must be claimable by the new group's engines, and what it still holds
 * stays its own to finish.
 */
describe.each(TEST_DATABASES)("a tenant's move to another engine group, seen by the engines, on %s", (kind) => {
  const db = useTestDatabase(kind);
  let clock: ManualClock;
  let task: number;
  beforeEach(async () => {
    await db.clear();
    clock = new ManualClock(T0);
    task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'poll', executorApp: 'reports', handler: 'poll', timeoutMs: 60_000 });
  });
  const engineOf = (group: string) => claimSide(db.dataSource, testConfig({ nodeId: `engine-${group}`, groups: [group], leaseMs: 15_000 }), clock);
  const move = (engineGroup: string) =>
    inTransaction(db.dataSource, async (em) => {
      await moveTenantGroup(em, { tenantId: 'acme', engineGroup, now: clock.now() });
      await em.update(TenantEntity, { id: 'acme' }, { engineGroup });
    });
  const row = (id: number) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });

  it('has the new group claim every run the old group held at the move and handed back after it (deferred, released, retried)', async () => {
    const waiting = await insertRun(db.dataSource, { taskId: task, state: 'RETRY_WAIT', attempt: 2 });
    const deferred = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: OLD_HOLDER, leaseUntil: T0 + 15_000 });
    const released = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: OLD_HOLDER, leaseUntil: T0 + 15_000, executorId: 7, dispatchedAt: T0 });
    const retried = await insertRun(db.dataSource, { taskId: task, state: 'ACCEPTED', executorId: 7, dispatchedAt: T0, acceptedAt: T0, deadlineAt: T0 + 60_000 });
    await move('gold');

    // The old group's engine gives its runs back, as it does without knowing of the move: no executor
    // took one (deferred), a graceful shutdown (released), a failed attempt with attempts left (retried).
    await inTransaction(db.dataSource, async (em) => {
      expect(await deferRunDispatch(em, { runId: deferred, attempt: 1, nodeId: OLD_HOLDER, from: ['CLAIMED'], dueAt: T0, executorId: null, error: 'no executor UP', now: T0 })).toBe(true);
      expect(await releaseRuns(em, { ids: [released], from: 'DISPATCHED', owner: OLD_HOLDER, now: T0 })).toBe(1);
      const again = { runId: retried, attempt: 1, from: ['ACCEPTED'] as const, dueAt: T0, error: 'boom', endedAs: 'FAILED' as const, startedAt: T0, finishedAt: T0, finishedClock: 'executor' as const, now: T0 };
      expect(await retryRunAttempt(em, again)).toBe(true);
    });

    expect((await engineOf('default').claimer.claimOnce()).claimed).toBe(0);
    const gold = engineOf('gold');
    expect((await gold.claimer.claimOnce()).claimed).toBe(4);
    expect(gold.queue.runs.map((r) => r.runId).sort((a, b) => a - b)).toEqual([waiting, deferred, released, retried].sort((a, b) => a - b));
    expect(new Set(gold.queue.runs.map((r) => r.engineGroup))).toEqual(new Set(['gold']));
  });

  it('leaves a run the old group holds in its hands through the move: it renews its lease and ends it; the group-wide watch (timeouts) is the new group\'s', async () => {
    const held = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: OLD_HOLDER, leaseUntil: T0 + 5_000, executorId: 7, dispatchedAt: T0, deadlineAt: T0 + 1_000 });
    await move('gold');

    expect(await row(held)).toMatchObject({ state: 'DISPATCHED', claimedBy: OLD_HOLDER, engineGroup: 'gold' });
    expect((await engineOf('gold').claimer.claimOnce()).claimed).toBe(0); // held: no second engine takes it
    expect(await inTransaction(db.dataSource, (em) => extendLeases(em, OLD_HOLDER, [held], T0 + 20_000))).toBe(1);
    // Past its deadline: the watchdog of the tenant's group as it is now sees it, the old one's does not.
    expect((await findOverdueRuns(db.dataSource.manager, { groups: ['gold'], now: T0 + 2_000, limit: 10 })).map((r) => r.runId)).toEqual([held]);
    expect(await findOverdueRuns(db.dataSource.manager, { groups: ['default'], now: T0 + 2_000, limit: 10 })).toEqual([]);
    const end = { runId: held, attempt: 1, from: ['DISPATCHED'] as const, to: 'SUCCEEDED' as const, resultJson: null, error: null, startedAt: T0, finishedAt: T0 + 500, finishedClock: 'executor' as const, now: T0 + 500, claimedBy: OLD_HOLDER };
    expect(await inTransaction(db.dataSource, (em) => finishRunAttempt(em, end))).toBe(true);
    expect(await row(held)).toMatchObject({ state: 'SUCCEEDED', engineGroup: 'gold' });
  });

  /** Transactions of this test's database waiting for a row lock (MariaDB). */
  const lockWaits = async () => {
    const [{ n }] = (await db.dataSource.query(
      `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
        WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()`,
    )) as Array<{ n: unknown }>;
    return Number(n);
  };
  const deferAt = (em: Parameters<typeof deferRunDispatch>[0], runId: number) =>
    deferRunDispatch(em, { runId, attempt: 1, nodeId: OLD_HOLDER, from: ['CLAIMED'], dueAt: T0, executorId: null, error: 'no executor UP', now: T0 });

  it.runIf(kind === 'mysql')('ends with the run given back in the new group whichever of the move and the hand-back writes the run first', async () => {
    const first = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: OLD_HOLDER, leaseUntil: T0 + 15_000 });
    const second = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: OLD_HOLDER, leaseUntil: T0 + 15_000 });

    // The hand-back holds its run's row: the move waits for it, then moves the run as given back.
    const handBack = db.dataSource.createQueryRunner();
    await handBack.startTransaction();
    expect(await deferAt(handBack.manager, first)).toBe(true);
    const moving = move('gold');
    await vi.waitFor(async () => expect(await lockWaits()).toBe(1), { timeout: 20_000 });
    await handBack.commitTransaction();
    await handBack.release();
    await moving;
    expect(await row(first)).toMatchObject({ state: 'RETRY_WAIT', claimedBy: null, engineGroup: 'gold' });

    // The move holds the row: the hand-back waits for it, and gives back a run of the group it moved to.
    const mover = db.dataSource.createQueryRunner();
    await mover.startTransaction();
    await moveTenantGroup(mover.manager, { tenantId: 'acme', engineGroup: 'silver', now: T0 });
    await mover.manager.update(TenantEntity, { id: 'acme' }, { engineGroup: 'silver' });
    const handing = inTransaction(db.dataSource, (em) => deferAt(em, second));
    await vi.waitFor(async () => expect(await lockWaits()).toBe(1), { timeout: 20_000 });
    await mover.commitTransaction();
    await mover.release();
    expect(await handing).toBe(true);
    expect(await row(second)).toMatchObject({ state: 'RETRY_WAIT', claimedBy: null, engineGroup: 'silver' });
    expect((await engineOf('silver').claimer.claimOnce()).claimed).toBe(2);
  });

  it.runIf(kind === 'mysql')("has a re-run or a backfill's slice read its task's group after a move that was committing (lockTaskForRuns)", async () => {
    const mover = db.dataSource.createQueryRunner();
    await mover.startTransaction();
    await moveTenantGroup(mover.manager, { tenantId: 'acme', engineGroup: 'gold', now: T0 });
    const reading = inTransaction(db.dataSource, (em) => lockTaskForRuns(em, { taskId: task, tenantId: 'acme' }));
    await vi.waitFor(async () => expect(await lockWaits()).toBe(1), { timeout: 20_000 });
    await mover.commitTransaction();
    await mover.release();
    expect(await reading).toMatchObject({ engineGroup: 'gold' });
  });

  it('leaves its ended runs where they ran', async () => {
    const ended = await insertRun(db.dataSource, { taskId: task, state: 'SUCCEEDED', finishedAt: T0 });
    await move('gold');
    expect((await row(ended)).engineGroup).toBe('default');
  });
});
