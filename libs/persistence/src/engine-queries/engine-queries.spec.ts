import { In, type DataSource } from 'typeorm';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { untilLockWaits } from '../../../../test/support/lock-waits';
import { EngineGroupEntity, RunAttemptEntity, RunEntity, TenantEntity } from '../entities';
import { autocommitted, inTransaction } from '../nest';
import { claimDueRuns, claimDueRunsSql, claimRangeParams } from './runs/claim-due-runs';
import { findTenantsWithDue, findTenantsWithDueSql } from './runs/find-tenants-with-due';
import { countTenantBacklog } from './runs/count-tenant-backlog';
import { claimDueTasksSql } from './tasks/claim-due-tasks';
import { anyTaskDueSql } from './tasks/any-task-due';
import { findLateRuns, findLateRunsSql } from './runs/find-late-runs';
import { electLateRuns } from './runs/elect-late-runs';
import { giveUpLateRun } from './runs/give-up-late-run';
import { readLeastStartDeadline } from './tasks/read-least-start-deadline';
import { extendLeases, FIND_LEASED_RUNS_SQL, findLeasedRuns } from './runs/renew-leases';
import { FIND_LEASE_HOLDERS_SQL, findLeaseHolders } from './runs/find-lease-holders';
import { insertMissingEngineGroup } from './engine-groups/insert-missing-engine-group';
import { findSettleableFanOutsSql } from '../fan-out-queries/stand-of-fan-out';
import { insertPlannedRuns, PlannedRunRow } from './runs/insert-planned-runs';
import { markRunsAccepted } from './runs/mark-runs-accepted';
import { markRunsDispatched } from './runs/mark-runs-dispatched';
import { finishSucceededRuns } from './runs/finish-succeeded-runs';
import { NotAllSucceededError } from './runs/not-all-succeeded-error';
import { releaseRuns } from './runs/release-runs';
import { skipMisfiredRuns } from './runs/skip-misfired-runs';
import { deferRunDispatch } from './runs/defer-run-dispatch';
import { retryRunAttempt } from './runs/retry-run-attempt';
import { recordRunProgress } from './runs/record-run-progress';
import { deferRateKeyRuns } from './keys/defer-rate-key-runs';
import { releaseHeldKeyRuns } from './keys/release-held-key-runs';
import { recordExecutorHeartbeat } from './executors/record-executor-heartbeat';
import { findUpExecutors, findUpExecutorsSql } from './executors/find-up-executors';
import { findSilentExecutorsSql } from './executors/find-silent-executors';
import { seedTenant } from '../../../../test/cluster/support/seed';

const T = 1_767_225_600_000;

const planned = (taskId: number, scheduledAt: number, extra: Partial<PlannedRunRow> = {}): PlannedRunRow => ({
  tenantId: 'acme',
  taskId,
  engineGroup: 'default',
  state: 'PENDING',
  fireKey: `s:${scheduledAt}`,
  priority: 0,
  paramsJson: '{"k":1}',
  scheduledAt,
  dueAt: scheduledAt,
  finishedAt: null,
  error: null,
  ...extra,
});

describe.each(TEST_DATABASES)('engine queries on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());
  const runs = () => db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } });
  /** A MANUAL task of acme with this start deadline (START_LATE's scan joins the runs' tasks); its id. */
  const insertManualTask = async (name: string, startDeadlineMs: number): Promise<number> => {
    await db.dataSource.query(
      `INSERT INTO tasks (tenant_id, engine_group, name, group_name, executor_app, handler, params, trigger_kind, interval_ms, fire_count,
         misfire_policy, misfire_threshold_ms, priority, concurrency_policy, timeout_ms, start_deadline_ms, retry_max_attempts,
         retry_backoff_base_ms, retry_backoff_max_ms, retry_jitter_permille, alarm_types, alarm_silence_ms, paused, next_fire_at,
         created_at, updated_at, version)
       VALUES ('acme', 'default', ?, 'default', 'app', 'h', '{}', 'MANUAL', NULL, 0, 'SKIP', 5000, 0, 'ALLOW', 60000, ?, 3, 1000, 1000, 0, '[]', 0, 0, NULL, ?, ?, 1)`,
      [name, startDeadlineMs, T, T],
    );
    return Number(((await db.dataSource.query('SELECT id FROM tasks WHERE name = ?', [name])) as Array<{ id: number }>)[0].id);
  };

  it('ix_runs_claim keeps its descending priority key part after every migration', async () => {
    // A later migration that makes TypeORM rebuild `runs` on SQLite (Table API column changes)
    // loses the DESC key part, which TypeORM cannot read back: this catches it on both databases.
    const parts =
      kind === 'mysql'
        ? ((await db.dataSource.query(`SHOW INDEX FROM runs WHERE Key_name = 'ix_runs_claim'`)) as Array<{ Column_name: string; Collation: string }>).map(
            (c) => `${c.Column_name} ${c.Collation === 'D' ? 'DESC' : 'ASC'}`,
          )
        : ((await db.dataSource.query(`PRAGMA index_xinfo('ix_runs_claim')`)) as Array<{ name: string | null; desc: number; key: number }>)
            .filter((c) => c.key === 1)
            .map((c) => `${c.name} ${c.desc ? 'DESC' : 'ASC'}`);
    expect(parts).toEqual(['engine_group ASC', 'state ASC', 'tenant_id ASC', 'due_at ASC', 'priority DESC']);
  });

  it('recordExecutorHeartbeat never moves heartbeat_at back: a heartbeat that landed late (a slow engine) keeps the later one', async () => {
    await db.dataSource.getRepository(TenantEntity).insert({ id: 'acme', name: 'acme', engineGroup: 'default', executorSecret: 's', createdAt: T });
    const beat = (now: number) =>
      inTransaction(db.dataSource, (em) =>
        recordExecutorHeartbeat(em, { tenantId: 'acme', app: 'billing', url: 'http://e1', capacity: 4, queueLimit: 100, inFlight: 0, protocolVersion: 2, handlers: ['run'], secretVersion: 1, now }),
      );
    const heartbeatAt = async () => Number((await db.dataSource.query('SELECT heartbeat_at AS h FROM executors'))[0].h);
    await beat(T + 10_000);
    await beat(T);
    expect(await heartbeatAt()).toBe(T + 10_000);
    await beat(T + 12_000);
    expect(await heartbeatAt()).toBe(T + 12_000);
    await db.dataSource.query("UPDATE executors SET state = 'DOWN'");
    await beat(T + 1_000);
    expect(await heartbeatAt()).toBe(T + 12_000);
  });

  it('insertMissingEngineGroup creates a group once when engines start together, and leaves an existing one alone', async () => {
    const groups = db.dataSource.getRepository(EngineGroupEntity);
    await groups.insert({ name: 'reports', description: 'by the operator', createdAt: T });
    // Concurrent transactions (separate connections on MariaDB): exactly one creates the group.
    const created = await Promise.all(
      ['engine-a', 'engine-b', 'engine-c', 'engine-d'].map((id) =>
        inTransaction(db.dataSource, (em) => insertMissingEngineGroup(em, { name: 'fresh', description: `created by engine ${id}`, createdAt: T + 1 })),
      ),
    );
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await inTransaction(db.dataSource, (em) => insertMissingEngineGroup(em, { name: 'reports', description: 'created by engine x', createdAt: T + 2 }))).toBe(false);
    const rows = await groups.find({ order: { name: 'ASC' } });
    expect(rows.map((r) => [r.name, r.createdAt])).toEqual([
      ['fresh', T + 1],
      ['reports', T],
    ]);
    expect(rows[0].description).toMatch(/^created by engine engine-[abcd]$/);
    expect(rows[1].description).toBe('by the operator');
  });

  it('markRunsDispatched / markRunsAccepted move many runs in one statement, each with its own values, only the ones still ours', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { state: 'CLAIMED', claimedBy: 'me', attempt: 1 });
    await repo.update({ id: ids[1] }, { claimedBy: 'survivor' }); // taken over meanwhile
    await repo.update({ id: ids[2] }, { attempt: 2 }); // an older attempt's dispatch
    // Why they waited (a rate key's token): said only while they wait; the mark that sends one clears it.
    await repo.update([ids[0], ids[1]], { error: 'Waiting for a token of its rate customerId (rateLimit 0.5/s, burst 1)' });
    const toDispatch = ids.map((runId, i) => ({ runId, attempt: 1, executorId: 10 + i, deadlineAt: T + 100 + i }));
    const moved = await inTransaction(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 5, runs: toDispatch }));
    expect([...moved].sort((a, b) => a - b)).toEqual([ids[0], ids[3]]);
    const all = await inTransaction(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 6, runs: [] }));
    expect(all.size).toBe(0);
    let after = await runs();
    expect(after.map((r) => [r.state, r.executorId, r.dispatchedAt, r.deadlineAt, r.error === null])).toEqual([
      ['DISPATCHED', 10, T + 5, T + 100, true],
      ['CLAIMED', null, null, null, false], // not sent (taken over): still waiting, still says why
      ['CLAIMED', null, null, null, true],
      ['DISPATCHED', 13, T + 5, T + 103, true],
    ]);
    const acks = [ids[0], ids[1], ids[3]].map((runId, i) => ({ runId, attempt: 1, sentAt: T + 6 + i, acceptedAt: T + 7 + i, deadlineAt: T + 200 + i }));
    expect(await inTransaction(db.dataSource, (em) => markRunsAccepted(em, { nodeId: 'me', now: T + 9, runs: acks }))).toBe(2);
    after = await runs();
    // dispatched_at: when the accepted request left, not when the run was marked (T + 5).
    expect(after.map((r) => [r.state, r.dispatchedAt, r.acceptedAt, r.deadlineAt])).toEqual([
      ['ACCEPTED', T + 6, T + 7, T + 200],
      ['CLAIMED', null, null, null],
      ['CLAIMED', null, null, null],
      ['ACCEPTED', T + 8, T + 9, T + 202],
    ]);
  });

  it('markRunsDispatched claims the runs read by a wake-up (PENDING, due) in the mark itself, with the lease; only those, only if nobody came first', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4, 5].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { attempt: 1 });
    await repo.update({ id: ids[0] }, { state: 'CLAIMED', claimedBy: 'me', leaseUntil: T + 30_000 }); // claimed as before
    await repo.update({ id: ids[2] }, { state: 'CLAIMED', claimedBy: 'peer', leaseUntil: T + 30_000 }); // a peer's poll came first
    await repo.update({ id: ids[3] }, { state: 'CANCELLED' }); // cancelled meanwhile
    await repo.update({ id: ids[4] }, { dueAt: T + 60_000 }); // not due (a back-off moved it)
    // ids[1]: PENDING and due — and also claimable only by a mark that says it claims it.
    const toDispatch = ids.map((runId, i) => ({ runId, attempt: 1, executorId: 10 + i, deadlineAt: T + 100, claiming: i > 0 }));
    const moved = await autocommitted(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 5, runs: toDispatch, leaseUntil: T + 20_005 }));
    expect([...moved].sort((a, b) => a - b)).toEqual([ids[0], ids[1]]);
    expect((await runs()).map((r) => [r.state, r.claimedBy, r.leaseUntil, r.executorId])).toEqual([
      ['DISPATCHED', 'me', T + 30_000, 10], // its lease kept: the renewals own it
      ['DISPATCHED', 'me', T + 20_005, 11],
      ['CLAIMED', 'peer', T + 30_000, null],
      ['CANCELLED', null, null, null],
      ['PENDING', null, null, null],
    ]);
    // A PENDING run is never moved by a mark that does not claim it.
    await repo.update({ id: ids[4] }, { dueAt: T });
    expect((await autocommitted(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 6, runs: [{ runId: ids[4], attempt: 1, executorId: 9, deadlineAt: T + 100 }] }))).size).toBe(0);
    await expect(autocommitted(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 6, runs: [{ runId: ids[4], attempt: 1, executorId: 9, deadlineAt: T + 100, claiming: true }] }))).rejects.toThrow(/need a lease/);
  });

  it('markRunsDispatched claims a wake-up’s run due after `now` (sent ahead of its instant) up to claimDueBefore, never one due later', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2].map((i) => planned(i, T + 40)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { attempt: 1 });
    const claim = (runId: number, claimDueBefore?: number) =>
      autocommitted(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T, runs: [{ runId, attempt: 1, executorId: 9, deadlineAt: T + 100, claiming: true }], leaseUntil: T + 20_000, claimDueBefore }));
    expect((await claim(ids[0])).size).toBe(0); // due at T + 40, `now` T: not by default
    expect((await claim(ids[0], T + 39)).size).toBe(0);
    expect([...(await claim(ids[0], T + 40))]).toEqual([ids[0]]);
    await repo.update({ id: ids[1] }, { dueAt: T + 5_000 }); // given back with a back-off since this node read it
    expect((await claim(ids[1], T + 40)).size).toBe(0);
    expect((await runs()).map((r) => [r.state, r.claimedBy])).toEqual([['DISPATCHED', 'me'], ['PENDING', null]]);
  });

  it('markRunsDispatched with values shared by groups of runs: each run gets its own, a run listed twice its first', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4, 5, 6].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    await db.dataSource.getRepository(RunEntity).update(ids, { state: 'CLAIMED', claimedBy: 'me', attempt: 1 });
    const toDispatch = ids.map((runId, i) => ({ runId, attempt: 1, executorId: i < 3 ? 10 : 11, deadlineAt: T + 100 }));
    // Listed again with other values: CASE's first matching branch wins, whatever the form.
    toDispatch.push({ runId: ids[0], attempt: 1, executorId: 11, deadlineAt: T + 100 });
    const moved = await inTransaction(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'me', now: T + 5, runs: toDispatch }));
    expect(moved.size).toBe(6);
    expect((await runs()).map((r) => [r.state, r.executorId, r.deadlineAt])).toEqual(ids.map((_, i) => ['DISPATCHED', i < 3 ? 10 : 11, T + 100]));
  });

  it('finishSucceededRuns ends many attempts in one update, each with its own values, only those still in a `from` state at that attempt, each once', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4, 5].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { state: 'ACCEPTED', attempt: 1, dispatchedAt: T + 1, acceptedAt: T + 2, deadlineAt: T + 999 });
    await repo.update({ id: ids[1] }, { state: 'TIMED_OUT', deadlineAt: null }); // the watchdog got there first
    await repo.update({ id: ids[2] }, { attempt: 2 }); // a late callback of attempt 1
    await repo.update({ id: ids[3] }, { state: 'DISPATCHED', acceptedAt: null }); // its 202 held back by the engine: written with the outcome
    const attempt = (i: number, extra: { resultJson?: string | null; attempt?: number; ack?: { sentAt: number; acceptedAt: number }; finishedClock?: 'engine' } = {}) => ({
      runId: ids[i],
      attempt: extra.attempt ?? 1,
      resultJson: extra.resultJson === undefined ? `{"n":${i}}` : extra.resultJson,
      startedAt: T + 10 + i,
      finishedAt: T + 20 + i,
      finishedClock: extra.finishedClock ?? ('executor' as const),
      ack: extra.ack ?? null,
    });
    const moved = await inTransaction(db.dataSource, (em) =>
      finishSucceededRuns(em, {
        from: ['DISPATCHED', 'ACCEPTED'],
        now: T + 30,
        attempts: [attempt(0), attempt(1), attempt(2), attempt(3, { resultJson: null, ack: { sentAt: T + 4, acceptedAt: T + 5 } }), attempt(0), attempt(4, { finishedClock: 'engine' })],
      }),
    );
    expect([...moved.entries()]).toEqual([
      [ids[0], 1],
      [ids[3], 1],
      [ids[4], 1],
    ]);
    // Each end on the clock it came with (4: an end reported without a time, stamped by the engine).
    expect((await runs()).map((r) => [r.state, r.attempt, r.result, r.startedAt, r.finishedAt, r.finishedClock, r.deadlineAt])).toEqual([
      ['SUCCEEDED', 1, { n: 0 }, T + 10, T + 20, 'executor', null],
      ['TIMED_OUT', 1, null, null, null, null, null],
      ['ACCEPTED', 2, null, null, null, null, T + 999],
      ['SUCCEEDED', 1, null, T + 13, T + 23, 'executor', null],
      ['SUCCEEDED', 1, { n: 4 }, T + 14, T + 24, 'engine', null],
    ]);
    // The held 202 is the run's timeline; the others keep what their ACCEPTED marks wrote.
    expect((await runs()).map((r) => [r.dispatchedAt, r.acceptedAt])).toEqual([
      [T + 1, T + 2],
      [T + 1, T + 2],
      [T + 1, T + 2],
      [T + 4, T + 5],
      [T + 1, T + 2],
    ]);
    const again = await inTransaction(db.dataSource, (em) => finishSucceededRuns(em, { from: ['DISPATCHED', 'ACCEPTED'], now: T + 40, attempts: [attempt(0)] }));
    expect(again.size).toBe(0); // a repeated callback: its run is over
  });

  it('finishSucceededRuns with expectAll: one UPDATE moves them all; if any attempt cannot move it throws NotAllSucceededError and, rolled back, nothing moved', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { state: 'ACCEPTED', attempt: 1, deadlineAt: T + 999 });
    const attempt = (i: number) => ({ runId: ids[i], attempt: 1, resultJson: `{"n":${i}}`, startedAt: T + 10 + i, finishedAt: T + 20 + i, finishedClock: 'executor' as const });
    const from = ['DISPATCHED', 'ACCEPTED'] as const;
    const moved = await inTransaction(db.dataSource, (em) => finishSucceededRuns(em, { from, now: T + 30, attempts: [attempt(0), attempt(1), attempt(0)], expectAll: true }));
    expect([...moved.entries()]).toEqual([
      [ids[0], 1],
      [ids[1], 1],
    ]);
    expect((await runs()).map((r) => [r.state, r.result, r.finishedAt])).toEqual([
      ['SUCCEEDED', { n: 0 }, T + 20],
      ['SUCCEEDED', { n: 1 }, T + 21],
      ['ACCEPTED', null, null],
    ]);
    // ids[0] is over already: the batch with it cannot tell which moved, so it moves nothing.
    await expect(inTransaction(db.dataSource, (em) => finishSucceededRuns(em, { from, now: T + 40, attempts: [attempt(2), attempt(0)], expectAll: true }))).rejects.toBeInstanceOf(NotAllSucceededError);
    expect((await runs())[2].state).toBe('ACCEPTED');
    const exact = await inTransaction(db.dataSource, (em) => finishSucceededRuns(em, { from, now: T + 40, attempts: [attempt(2), attempt(0)] }));
    expect([...exact.entries()]).toEqual([[ids[2], 1]]);
  });

  it('markRunsDispatched autocommitted: committed when it returns, only the runs this node still holds', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2].map((i) => planned(i, T)), T));
    const ids = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update(ids, { state: 'CLAIMED', claimedBy: 'n1', attempt: 1 });
    await repo.update({ id: ids[1] }, { claimedBy: 'n2' }); // taken over meanwhile
    const moved = await autocommitted(db.dataSource, (em) =>
      markRunsDispatched(em, { nodeId: 'n1', now: T + 5, runs: ids.map((runId) => ({ runId, attempt: 1, executorId: 7, deadlineAt: T + 100 })) }),
    );
    expect([...moved]).toEqual([ids[0]]);
    expect((await runs()).map((r) => [r.state, r.dispatchedAt])).toEqual([
      ['DISPATCHED', T + 5],
      ['CLAIMED', null],
    ]);
  });

  it('insertPlannedRuns ignores existing (task, fire key) rows; the new ones are roots of their own flows (flow_id null)', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [planned(1, T), planned(1, T + 1000)], T));
    const first = await runs();
    // An existing row whose flow is someone else's must keep it.
    await db.dataSource.getRepository(RunEntity).update({ id: first[1].id }, { flowId: 999 });
    await inTransaction(db.dataSource, async (em) => {
      const again = [planned(1, T + 1000, { priority: 5 }), planned(1, T + 2000), planned(2, T)];
      await insertPlannedRuns(em, again, T + 10);
    });
    const after = await runs();
    expect(after.map((r) => [r.taskId, r.fireKey, r.priority, r.createdAt])).toEqual([
      [1, `s:${T}`, 0, T],
      [1, `s:${T + 1000}`, 0, T], // untouched by the second insert
      [1, `s:${T + 2000}`, 0, T + 10],
      [2, `s:${T}`, 0, T + 10],
    ]);
    expect(after.map((r) => r.flowId)).toEqual([null, 999, null, null]);
    expect(after[0]).toMatchObject({ state: 'PENDING', cause: 'SCHEDULE', attempt: 1, params: { k: 1 }, parentRunId: null });
  });

  it('releaseRuns and skipMisfiredRuns move only runs still in the state, owner and lease they name', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4].map((i) => planned(1, T + i)), T));
    const [a, b, c, d] = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update({ id: a }, { state: 'CLAIMED', claimedBy: 'x', leaseUntil: T + 100 });
    await repo.update({ id: b }, { state: 'CLAIMED', claimedBy: 'y', leaseUntil: T + 100 });
    await repo.update({ id: c }, { state: 'CLAIMED', claimedBy: 'x', leaseUntil: T + 900 });
    await repo.update({ id: d }, { state: 'DISPATCHED', claimedBy: 'x', leaseUntil: T + 100, executorId: 3 });
    const moved = await inTransaction(db.dataSource, async (em) => [
      await releaseRuns(em, { ids: [a, b, c, d], from: 'CLAIMED', owner: 'x', leaseBefore: T + 500, now: T + 500 }),
      await releaseRuns(em, { ids: [a, b, c, d], from: 'DISPATCHED', owner: 'x', now: T + 500 }),
      await skipMisfiredRuns(em, { ids: [b, c], owner: 'y', reason: 'late', now: T + 500 }),
    ]);
    expect(moved).toEqual([1, 1, 1]);
    expect((await runs()).map((r) => [r.state, r.claimedBy, r.executorId])).toEqual([
      ['PENDING', null, null],
      ['SKIPPED', null, null],
      ['CLAIMED', 'x', null],
      ['PENDING', null, 3],
    ]);
  });

  it('deferRunDispatch moves due_at, never the instant: deferred twice, the claim still reads the first instant; a retry starts a new one', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [planned(1, T + 10_000)], T));
    const [{ id }] = await runs();
    const take = { takes: [{ tenantId: 'acme', engineGroup: 'default', limit: 1 }], owner: 'e', leaseUntil: T + 99_999 };
    const claim = (at: number) => inTransaction(db.dataSource, (em) => claimDueRuns(em, { ...take, dueBefore: at, now: at }));
    const defer = (dueAt: number) =>
      inTransaction(db.dataSource, (em) => deferRunDispatch(em, { runId: id, attempt: 1, nodeId: 'e', from: ['CLAIMED'], dueAt, executorId: null, error: 'busy', now: T }));
    // Claimed ahead of its instant (sent ahead, refused), deferred to before it, then to after it.
    expect((await claim(T + 10_000))[0]).toMatchObject({ dueAt: T + 10_000, instantAt: T + 10_000 });
    expect(await defer(T + 500)).toBe(true);
    expect((await claim(T + 500))[0]).toMatchObject({ dueAt: T + 500, instantAt: T + 10_000 });
    expect(await defer(T + 12_000)).toBe(true);
    expect((await claim(T + 12_000))[0]).toMatchObject({ dueAt: T + 12_000, instantAt: T + 10_000 });
    // A failed attempt retried: the new attempt's instant is its own due time.
    await inTransaction(db.dataSource, (em) =>
      retryRunAttempt(em, { runId: id, attempt: 1, from: ['CLAIMED'], dueAt: T + 20_000, error: 'boom', endedAs: 'FAILED', startedAt: null, finishedAt: T + 13_000, finishedClock: 'engine', now: T + 13_000 }),
    );
    expect((await claim(T + 20_000))[0]).toMatchObject({ attempt: 2, dueAt: T + 20_000, instantAt: T + 20_000 });
  });

  it('retryRunAttempt leaves the row to the next attempt: the ending attempt’s times in run_attempts only, its error until the retry is sent, the next attempt’s start its own', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2].map((i) => planned(1, T, { fireKey: `s:${T}:${i}` })), T));
    const [timedOut, failed] = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update([timedOut, failed], { state: 'ACCEPTED', attempt: 1, claimedBy: 'e', executorId: 7, dispatchedAt: T + 1, acceptedAt: T + 2 });
    // timedOut: its start came with an interim callback, and the engine times it out (its end the engine's); failed: its executor reports both.
    await recordRunProgress(db.dataSource.manager, { runId: timedOut, tenantId: 'acme', attempt: 1, progress: null, startedAt: T + 3, now: T + 3 });
    const retry = (runId: number, error: string, endedAs: 'FAILED' | 'TIMED_OUT', startedAt: number | null, finishedAt: number, finishedClock: 'engine' | 'executor') =>
      inTransaction(db.dataSource, (em) => retryRunAttempt(em, { runId, attempt: 1, from: ['ACCEPTED'], dueAt: T + 2_000, error, endedAs, startedAt, finishedAt, finishedClock, now: T + 1_000 }));
    expect(await retry(timedOut, 'did not finish within its timeout', 'TIMED_OUT', null, T + 1_000, 'engine')).toBe(true);
    expect(await retry(failed, 'boom', 'FAILED', T + 4, T + 900, 'executor')).toBe(true);
    const waiting = await runs();
    expect(waiting.map((r) => [r.state, r.attempt, r.startedAt, r.finishedAt, r.error])).toEqual([
      ['RETRY_WAIT', 2, null, null, 'did not finish within its timeout'],
      ['RETRY_WAIT', 2, null, null, 'boom'],
    ]);
    const kept = await db.dataSource.getRepository(RunAttemptEntity).find({ order: { runId: 'ASC' } });
    // Each attempt's state is how it ended, not the row's state then (ACCEPTED: how far it got is its timeline's).
    expect(kept.map((a) => [a.runId, a.attempt, a.state, a.startedAt, a.finishedAt, a.finishedClock, a.error])).toEqual([
      [timedOut, 1, 'TIMED_OUT', T + 3, T + 1_000, 'engine', 'did not finish within its timeout'],
      [failed, 1, 'FAILED', T + 4, T + 900, 'executor', 'boom'],
    ]);
    // Attempt 2 sent: the last attempt's error goes with the mark; its start is the one attempt 2 reports.
    await repo.update([timedOut, failed], { state: 'CLAIMED', claimedBy: 'e' });
    const sent = [timedOut, failed].map((runId) => ({ runId, attempt: 2, executorId: 8, deadlineAt: T + 3_000 }));
    expect((await inTransaction(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'e', now: T + 2_000, runs: sent }))).size).toBe(2);
    for (const runId of [timedOut, failed]) await recordRunProgress(db.dataSource.manager, { runId, tenantId: 'acme', attempt: 2, progress: 10, startedAt: T + 2_005, now: T + 2_005 });
    expect((await runs()).map((r) => [r.state, r.attempt, r.dispatchedAt, r.startedAt, r.finishedAt, r.error])).toEqual([
      ['DISPATCHED', 2, T + 2_000, T + 2_005, null, null],
      ['DISPATCHED', 2, T + 2_000, T + 2_005, null, null],
    ]);
  });

  it('START_LATE counts a run that waited for its rate key from its token’s time, through a later dispatch back-off; a run deferred by dispatch trouble from its fire time; a retry from its instant', async () => {
    const taskId = await insertManualTask('notify', 10_000);
    // Three runs fired at T, each claimed by engine e: `rated` finds no token (due at T + 60 s), `busy` finds no executor
    // (back in 500 ms), `tokenThenBusy` waits for a token until T + 30 s, then finds no executor.
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3].map((i) => planned(taskId, T, { fireKey: `s:${T}:${i}` })), T));
    const [rated, busy, tokenThenBusy] = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    const claim = (id: number) => repo.update({ id }, { state: 'CLAIMED', claimedBy: 'e', leaseUntil: T + 99_999 });
    const noExecutor = (id: number, dueAt: number, now: number) =>
      inTransaction(db.dataSource, (em) => deferRunDispatch(em, { runId: id, attempt: 1, nodeId: 'e', from: ['CLAIMED'], dueAt, executorId: null, error: 'no executor', now }));
    for (const id of [rated, busy, tokenThenBusy]) await claim(id);
    const reason = 'Waiting for a token of its rate customerId (rateLimit 0.05/s, burst 1)';
    await inTransaction(db.dataSource, (em) => deferRateKeyRuns(em, { runs: [{ id: rated, dueAt: T + 60_000 }, { id: tokenThenBusy, dueAt: T + 30_000 }], owner: 'e', reason, now: T }));
    await noExecutor(busy, T + 500, T);
    const late = async (now: number) =>
      (await findLateRuns(db.dataSource.manager, { groups: ['default'], now, firedBefore: now - 10_000, limit: 100 })).sort((a, b) => a.runId - b.runId).map((r) => [r.runId, r.lateFrom, r.lateFromAt]);

    expect((await repo.findOneByOrFail({ id: rated })).lateFromAt).toBe(T + 60_000);
    // Past fire time + deadline: only the run the platform could not send is late; the waits for a token are the task's own.
    expect(await late(T + 15_000)).toEqual([[busy, T, null]]);
    // tokenThenBusy took its token at T + 30 s and met no executor: late from its token's time, not its fire time.
    await claim(tokenThenBusy);
    await noExecutor(tokenThenBusy, T + 30_500, T + 30_000);
    expect(await late(T + 39_000)).toEqual([[busy, T, null]]);
    expect(await late(T + 40_001)).toEqual([
      [busy, T, null],
      [tokenThenBusy, T + 30_000, T + 30_000],
    ]);
    // rated: late once its token's time is a deadline old.
    expect(await late(T + 70_000)).not.toContainEqual([rated, T + 60_000, T + 60_000]);
    expect(await late(T + 70_001)).toContainEqual([rated, T + 60_000, T + 60_000]);
    // A retry's own due time counts, not the token an earlier attempt waited for.
    await inTransaction(db.dataSource, (em) =>
      retryRunAttempt(em, { runId: rated, attempt: 1, from: ['PENDING'], dueAt: T + 80_000, error: 'orphaned', endedAs: 'FAILED', startedAt: null, finishedAt: T + 65_000, finishedClock: 'engine', now: T + 65_000 }),
    );
    expect((await repo.findOneByOrFail({ id: rated })).lateFromAt).toBe(T + 80_000);
    expect((await late(T + 90_000)).map(([id]) => id)).not.toContain(rated);
    expect(await late(T + 90_001)).toContainEqual([rated, T + 80_000, T + 80_000]);
  });

  it('START_LATE elects each late run once: the runs read are locked for the alarms, a second election meanwhile skips them, and after the commit finds them alarmed; a run since dispatched is not elected', async () => {
    const taskId = await insertManualTask('report', 1_000);
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3].map((i) => planned(taskId, T, { fireKey: `s:${T}:${i}` })), T));
    const [a, b, dispatched] = (await runs()).map((r) => r.id);
    await db.dataSource.getRepository(RunEntity).update({ id: dispatched }, { state: 'DISPATCHED', claimedBy: 'e', executorId: 1, dispatchedAt: T + 1 });
    const elect = (ids: number[], now: number) => inTransaction(db.dataSource, async (em) => [...(await electLateRuns(em, ids, now))].sort((x, y) => x - y));
    if (kind === 'mysql') {
      let release = () => undefined as void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let firstElected: number[] = [];
      const first = inTransaction(db.dataSource, async (em) => {
        firstElected = [...(await electLateRuns(em, [a], T + 5_000))];
        await held; // its alarms being written
      });
      await vi.waitFor(() => expect(firstElected).toEqual([a]));
      expect(await elect([a, b, dispatched], T + 5_001)).toEqual([b]); // a is locked: skipped, not waited for
      release();
      await first;
    } else {
      expect(await elect([a, b, dispatched], T + 5_000)).toEqual([a, b]);
    }
    expect(await elect([a, b, dispatched], T + 6_000)).toEqual([]);
    expect((await runs()).map((r) => r.lateAlarmedAt)).toEqual(kind === 'mysql' ? [T + 5_000, T + 5_001, null] : [T + 5_000, T + 5_000, null]);
  });

  it('a GIVE_UP task’s late run ends FAILED only when provably never sent (PENDING, RETRY_WAIT with no executor, CLAIMED in an engine), once, whoever tries at the same time', async () => {
    const taskId = await insertManualTask('billing', 1_000);
    await db.dataSource.query(`UPDATE tasks SET on_start_late = 'GIVE_UP' WHERE id = ?`, [taskId]);
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4, 5, 6].map((i) => planned(taskId, T, { fireKey: `s:${T}:${i}` })), T));
    const [pending, noExecutor, held, noAnswer, sent, sentThenReleased] = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update({ id: In([noExecutor, held, noAnswer]) }, { state: 'CLAIMED', claimedBy: 'e', leaseUntil: T + 99_999 });
    const defer = (id: number, executorId: number | null) =>
      inTransaction(db.dataSource, (em) => deferRunDispatch(em, { runId: id, attempt: 1, nodeId: 'e', from: ['CLAIMED'], dueAt: T + 500, executorId, error: 'Dispatch deferred by 500 ms: no executor of app app is UP', now: T }));
    await defer(noExecutor, null);
    await defer(noAnswer, 7); // the POST got no answer: executor 7 may have started it
    await repo.update({ id: sent }, { state: 'DISPATCHED', claimedBy: 'e', executorId: 7, dispatchedAt: T + 1 });
    await repo.update({ id: sentThenReleased }, { state: 'PENDING', dispatchedAt: T + 1 }); // its dead engine had sent it
    // The scan carries the policy; a run sent (or maybe sent: dispatched_at kept) is not late at all.
    const late = await findLateRuns(db.dataSource.manager, { groups: ['default'], now: T + 2_000, firedBefore: T + 1_000, limit: 100 });
    expect(late.map((r) => [r.runId, r.onStartLate, r.executorApp, r.executorId]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [pending, 'GIVE_UP', 'app', null],
      [noExecutor, 'GIVE_UP', 'app', null],
      [held, 'GIVE_UP', 'app', null],
      [noAnswer, 'GIVE_UP', 'app', 7],
    ]);
    const giveUp = (runId: number, options: { attempt?: number; lateFrom?: number } = {}) =>
      inTransaction(db.dataSource, (em) => giveUpLateRun(em, { runId, attempt: options.attempt ?? 1, lateFrom: options.lateFrom ?? T, error: 'given up', now: T + 2_000 }), { isolation: 'READ COMMITTED' });
    // Not the attempt, nor the instant, the scan read: left alone.
    expect(await giveUp(pending, { attempt: 2 })).toBe(false);
    expect(await giveUp(pending, { lateFrom: T + 1 })).toBe(false);
    // Two engines at once (two connections on MariaDB: the second waits for the first's row lock, then matches nothing).
    expect((await Promise.all([giveUp(pending), giveUp(pending)])).filter(Boolean)).toHaveLength(1);
    expect(await giveUp(noExecutor)).toBe(true);
    expect(await giveUp(held)).toBe(true);
    for (const id of [noAnswer, sent, sentThenReleased]) expect(await giveUp(id)).toBe(false);
    expect((await runs()).map((r) => [r.state, r.claimedBy, r.leaseUntil, r.lateAlarmedAt, r.finishedAt, r.error])).toEqual([
      ['FAILED', null, null, T + 2_000, T + 2_000, 'given up'],
      ['FAILED', null, null, T + 2_000, T + 2_000, 'given up'],
      ['FAILED', null, null, T + 2_000, T + 2_000, 'given up'],
      ['RETRY_WAIT', null, null, null, null, 'Dispatch deferred by 500 ms: no executor of app app is UP'],
      ['DISPATCHED', 'e', null, null, null, null],
      ['PENDING', null, null, null, null, null],
    ]);
    // The engine that held it can no longer send it: its mark is guarded on its claim.
    expect((await inTransaction(db.dataSource, (em) => markRunsDispatched(em, { nodeId: 'e', now: T + 3_000, runs: [{ runId: held, attempt: 1, executorId: 7, deadlineAt: T + 9_000 }] }))).size).toBe(0);
  });

  it('a lease renewal reads what the engine holds without locking it, and extends only the runs it names, still held, skipping a locked one', async () => {
    const taskId = await insertManualTask('held', 1_000);
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4].map((i) => planned(taskId, T, { fireKey: `s:${T}:${i}` })), T));
    const [due, notDue, busy, gone] = (await runs()).map((r) => r.id);
    const repo = db.dataSource.getRepository(RunEntity);
    await repo.update({ id: In([due, busy, gone]) }, { state: 'CLAIMED', claimedBy: 'e1', leaseUntil: T + 100 });
    await repo.update({ id: notDue }, { state: 'DISPATCHED', claimedBy: 'e1', executorId: 1, leaseUntil: T + 60_000 });
    expect((await findLeasedRuns(db.dataSource.manager, 'e1')).map((r) => [r.id, r.state, r.leaseUntil]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [due, 'CLAIMED', T + 100],
      [notDue, 'DISPATCHED', T + 60_000],
      [busy, 'CLAIMED', T + 100],
      [gone, 'CLAIMED', T + 100],
    ]);
    await repo.update({ id: gone }, { claimedBy: 'e2' }); // taken over since the read
    if (kind === 'mysql') {
      // Another transaction holds `busy` (a mark of it in flight); the extension neither waits for it nor locks `notDue`.
      const other = db.dataSource.createQueryRunner();
      await other.startTransaction('READ COMMITTED');
      try {
        await other.query('SELECT id FROM runs WHERE id = ? FOR UPDATE', [busy]);
        const extended = await inTransaction(
          db.dataSource,
          async (em) => {
            const n = await extendLeases(em, 'e1', [due, busy, gone], T + 20_000);
            await other.query('SELECT id FROM runs WHERE id = ? FOR UPDATE NOWAIT', [notDue]); // throws if the extension had locked it
            return n;
          },
          { isolation: 'READ COMMITTED' },
        );
        expect(extended).toBe(1);
      } finally {
        await other.rollbackTransaction();
        await other.release();
      }
    } else {
      await repo.update({ id: busy }, { leaseUntil: T + 20_000 }); // SQLite has no row locks: as if renewed
      expect(await inTransaction(db.dataSource, (em) => extendLeases(em, 'e1', [due, gone], T + 20_000))).toBe(1);
    }
    expect((await runs()).map((r) => [r.id, r.leaseUntil])).toEqual([
      [due, T + 20_000],
      [notDue, T + 60_000],
      [busy, kind === 'mysql' ? T + 100 : T + 20_000],
      [gone, T + 100],
    ]);
  });

  it('START_LATE counts a run its concurrency key held from when the key gave it a place, not from its fire time', async () => {
    const taskId = await insertManualTask('sync', 1_000);
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [planned(taskId, T)], T));
    const [{ id }] = await runs();
    const repo = db.dataSource.getRepository(RunEntity);
    // Held by its key from its claim until T + 50 s (HELD runs are not scanned), then given a place.
    await repo.update({ id }, { state: 'HELD', runKey: 'customer-7' });
    expect(await inTransaction(db.dataSource, (em) => releaseHeldKeyRuns(em, { ids: [id], now: T + 50_000 }))).toBe(1);
    expect((await repo.findOneByOrFail({ id })).lateFromAt).toBe(T + 50_000);
    const late = async (now: number) => (await findLateRuns(db.dataSource.manager, { groups: ['default'], now, firedBefore: now - 1_000, limit: 100 })).map((r) => [r.runId, r.lateFrom]);
    // A start deadline of 1 s: late a second after its place, not at once for its fire time 50 s back.
    expect(await late(T + 50_500)).toEqual([]);
    expect(await late(T + 51_001)).toEqual([[id, T + 50_000]]);
  });

  it("START_LATE's scan carries the task's alarm settings, so its alarm reads nothing more", async () => {
    const taskId = await insertManualTask('nightly', 1_000);
    await db.dataSource.query(`UPDATE tasks SET alarm_types = '["START_LATE"]', alarm_silence_ms = 30000 WHERE id = ?`, [taskId]);
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [planned(taskId, T)], T));
    const [late] = await findLateRuns(db.dataSource.manager, { groups: ['default'], now: T + 2_000, firedBefore: T + 1_000, limit: 100 });
    expect(late).toMatchObject({ taskId, alarmTypes: ['START_LATE'], alarmSilenceMs: 30_000 });
  });

  it.skipIf(kind !== 'mysql')('retryRunAttempt: an attempt another transaction ended first, while this one waited on its copy, is left to it (false), not a failed transaction', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [planned(1, T)], T));
    const [{ id }] = await runs();
    await db.dataSource.getRepository(RunEntity).update({ id }, { state: 'CLAIMED', claimedBy: 'e' });
    const ending = { runId: id, attempt: 1, from: ['CLAIMED'] as const, dueAt: T + 5_000, error: 'boom', endedAs: 'FAILED' as const, startedAt: null, finishedAt: T + 1_000, finishedClock: 'engine' as const };
    // Two connections of their own, held from the start: neither transaction waits for the pool.
    const [a, b] = [db.dataSource.createQueryRunner(), db.dataSource.createQueryRunner()];
    try {
      await Promise.all([a.connect(), b.connect()]);
      // READ COMMITTED, as the engines' writes run: each INSERT … SELECT reads the row as last committed, without waiting.
      await a.startTransaction('READ COMMITTED');
      await b.startTransaction('READ COMMITTED');
      expect(await retryRunAttempt(a.manager, { ...ending, now: T + 1_000 })).toBe(true);
      // The watchdog's timeout of the same attempt, say: it read the row before the first commits, and waits on its copy's key.
      const second = retryRunAttempt(b.manager, { ...ending, now: T + 1_001 });
      await untilLockWaits(db.dataSource, 1);
      await a.commitTransaction();
      expect(await second).toBe(false);
      await b.commitTransaction();
    } finally {
      for (const runner of [a, b]) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }
    expect(await db.dataSource.getRepository(RunAttemptEntity).find()).toMatchObject([{ runId: id, attempt: 1, endedAt: T + 1_000 }]);
    expect((await runs())[0]).toMatchObject({ state: 'RETRY_WAIT', attempt: 2 });
  });

  it('claimDueRuns takes each tenant’s allotment in due order then priority, across its claimable states, and nobody else’s', async () => {
    await inTransaction(db.dataSource, (em) =>
      insertPlannedRuns(
        em,
        [
          planned(1, T + 20, { priority: 1 }),
          planned(2, T + 20, { priority: 9 }),
          planned(3, T + 10, { engineGroup: 'reports', tenantId: 'beta' }),
          planned(4, T + 30),
          planned(5, T + 5, { engineGroup: 'nobody' }),
          planned(6, T + 1, { tenantId: 'gamma' }),
          planned(7, T + 25, { tenantId: 'beta', engineGroup: 'reports' }),
          planned(8, T, { tenantId: 'beta' }), // beta's runs are in group reports: this one is not in its range
        ],
        T,
      ),
    );
    await db.dataSource.getRepository(RunEntity).update({ taskId: 4 }, { state: 'RETRY_WAIT' });
    const claimed = await inTransaction(db.dataSource, (em) =>
      claimDueRuns(em, {
        takes: [
          { tenantId: 'acme', engineGroup: 'default', limit: 3 },
          { tenantId: 'beta', engineGroup: 'reports', limit: 1 },
        ],
        dueBefore: T + 30,
        owner: 'e',
        leaseUntil: T + 99,
        now: T,
      }),
    );
    expect(claimed.map((r) => r.taskId)).toEqual([3, 2, 1, 4]); // gamma had no allotment; beta's run 8 is outside its group
    expect(claimed.every((r) => r.leaseUntil === T + 99 && r.flowId === r.id)).toBe(true);
  });

  it('claimDueRuns with leaveWoken leaves the PENDING runs a console made in the window (MANUAL, EVENT) to their wake-up, and takes the rest', async () => {
    await inTransaction(db.dataSource, (em) => insertPlannedRuns(em, [1, 2, 3, 4, 5, 6].map((task) => planned(task, T)), T));
    const runs = db.dataSource.getRepository(RunEntity);
    await runs.update({ taskId: 1 }, { cause: 'MANUAL', createdAt: T - 100 }); // in the window: left
    await runs.update({ taskId: 2 }, { cause: 'EVENT', createdAt: T + 100 }); // in the window (a console clock a little ahead): left
    await runs.update({ taskId: 3 }, { cause: 'MANUAL', createdAt: T - 300 }); // older: its wake-up was lost, taken
    await runs.update({ taskId: 4 }, { cause: 'SCHEDULE', createdAt: T }); // nobody wakes for it: taken
    await runs.update({ taskId: 5 }, { cause: 'MANUAL', createdAt: T, state: 'RETRY_WAIT' }); // a retry: taken
    await runs.update({ taskId: 6 }, { cause: 'MANUAL', createdAt: T + 5_000 }); // a console clock far ahead: taken
    // Claimed and rolled back: the second claim finds the same rows.
    const claim = async (leaveWoken?: { from: number; to: number }) => {
      const runner = db.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        const claimed = await claimDueRuns(runner.manager, { takes: [{ tenantId: 'acme', engineGroup: 'default', limit: 10, leaveWoken }], dueBefore: T + 30, owner: 'e', leaseUntil: T + 99, now: T });
        return claimed.map((r) => r.taskId).sort((a, b) => a - b);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    };
    expect(await claim({ from: T - 250, to: T + 250 })).toEqual([3, 4, 5, 6]);
    expect(await claim()).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

/** The plans MySQL/MariaDB chooses, on a table big enough for the optimizer to care. */
describe('engine query plans on mysql', () => {
  const db = useTestDatabase('mysql');
  const explain = async (ds: DataSource, sql: string, params: unknown[]) => {
    const rows: Array<{ key: string | null; type: string; Extra: string | null }> = await ds.query(`EXPLAIN ${sql}`, params);
    return rows[0];
  };

  beforeAll(async () => {
    // 30 000 runs: 20 000 finished (history), 6 000 due PENDING, 4 000 held by 4 engines.
    for (let chunk = 0; chunk < 30; chunk++) {
      const values: string[] = [];
      for (let i = chunk * 1000; i < (chunk + 1) * 1000; i++) {
        const state = i < 20_000 ? 'SUCCEEDED' : i < 26_000 ? 'PENDING' : i % 2 ? 'CLAIMED' : 'DISPATCHED';
        const owner = state === 'CLAIMED' || state === 'DISPATCHED' ? `'node-${i % 4}'` : 'NULL';
        const lease = owner === 'NULL' ? 'NULL' : String(T + (i % 100));
        values.push(`('acme', ${i % 500}, '${i % 3 ? 'default' : 'other'}', '${state}', 'SCHEDULE', 's:${i}', 1, ${i % 5}, '{}', ${T + i}, ${T + i}, ${owner}, ${lease}, ${T}, ${T})`);
      }
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, claimed_by, lease_until, created_at, updated_at) VALUES ${values.join(',')}`,
      );
    }
    // 1,000 more tenants with 5 due runs each: the claim's ranges per tenant.
    const many: string[] = [];
    for (let i = 0; i < 5000; i++) many.push(`('t${i % 1000}', 1, 'default', 'PENDING', 'SCHEDULE', 'm:${i}', 1, 0, '{}', ${T + i}, ${T + i}, NULL, NULL, ${T}, ${T})`);
    await db.dataSource.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, claimed_by, lease_until, created_at, updated_at) VALUES ${many.join(',')}`,
    );
    // 3 000 tasks of two groups, a tenth paused, next fires spread over an hour.
    const tasks: string[] = [];
    for (let i = 0; i < 3000; i++) {
      tasks.push(
        `('acme', '${i % 2 ? 'default' : 'other'}', 't${i}', 'default', 'app', 'h', '{}', 'FIXED_RATE', 60000, 0, 'SKIP', 5000, 0, 'ALLOW', ` +
          `1000, 1000, 1, 1000, 1000, 0, '[]', 1000, ${i % 10 === 0 ? 1 : 0}, ${T + i * 1200}, ${T}, ${T}, 1)`,
      );
    }
    await db.dataSource.query(
      `INSERT INTO tasks (tenant_id, engine_group, name, group_name, executor_app, handler, params, trigger_kind, interval_ms, fire_count,
         misfire_policy, misfire_threshold_ms, priority, concurrency_policy, timeout_ms, start_deadline_ms, retry_max_attempts,
         retry_backoff_base_ms, retry_backoff_max_ms, retry_jitter_permille, alarm_types, alarm_silence_ms, paused, next_fire_at,
         created_at, updated_at, version) VALUES ${tasks.join(',')}`,
    );
    await db.dataSource.query('ANALYZE TABLE runs, tasks');
  });

  it('the claim reads one in-order range of ix_runs_claim per tenant (no filesort: LIMIT stops the scan and the locking)', async () => {
    for (const dueBefore of [T + 23_000, T + 40_000]) {
      // Part of the tenant's due range, or all of it (then MariaDB says `ref` on the (group, state, tenant) prefix): in index order either way.
      const plan = await explain(db.dataSource, claimDueRunsSql('mysql'), claimRangeParams({ tenantId: 'acme', engineGroup: 'default', limit: 500, leaveWoken: { from: T, to: T + 500 } }, 'PENDING', { dueBefore, now: T }));
      expect(plan.key).toBe('ix_runs_claim');
      expect(['range', 'ref']).toContain(plan.type);
      expect(plan.Extra ?? '').not.toMatch(/filesort/);
    }
    const plan = await explain(db.dataSource, claimDueRunsSql('mysql'), claimRangeParams({ tenantId: 'acme', engineGroup: 'default', limit: 500 }, 'RETRY_WAIT', { dueBefore: T + 40_000, now: T }));
    expect(plan.key).toBe('ix_runs_claim');
    expect(plan.Extra ?? '').not.toMatch(/filesort/);
    const columns: Array<{ Column_name: string; Collation: string }> = await db.dataSource.query(`SHOW INDEX FROM runs WHERE Key_name = 'ix_runs_claim'`);
    expect(columns.map((c) => `${c.Column_name} ${c.Collation}`)).toEqual(['engine_group A', 'state A', 'tenant_id A', 'due_at A', 'priority D']);
  });

  it('the look at idle tenants is index dives into ix_runs_claim, the rows never read, however many runs a tenant has due', async () => {
    const runner = db.dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');
    try {
      const ids = ['acme', 't1', 'idle'];
      await runner.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES ${ids.map(() => "(?, 'x', 'default', 's', 0)").join(', ')}`, ids);
      const rows: Array<{ table: string | null; key: string | null; type: string; Extra: string | null }> = await runner.query(`EXPLAIN ${findTenantsWithDueSql('mysql', 3)}`, [...ids, T + 40_000, T]);
      const ofRuns = rows.filter((r) => r.table === 'runs');
      expect(ofRuns).toHaveLength(2);
      for (const r of ofRuns) {
        expect(r.key).toBe('ix_runs_claim');
        expect(r.Extra ?? '').toMatch(/Using index/);
      }
      // acme has 6,000 due runs, t1 five, `idle` none.
      expect(await findTenantsWithDue(runner.manager, { tenantIds: ids, dueBefore: T + 40_000, now: T })).toEqual(new Set(['acme', 't1']));
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('a turn of 100 tenants is one statement of index ranges, each read as far as its LIMIT, whatever the other tenants’ backlogs', async () => {
    const range = claimDueRunsSql('mysql');
    const tenants = Array.from({ length: 100 }, (_, i) => `t${i * 10}`);
    const sql = tenants.map(() => `(${range})`).join(' UNION ALL ');
    const params = tenants.flatMap((t) => claimRangeParams({ tenantId: t, engineGroup: 'default', limit: 3 }, 'PENDING', { dueBefore: T + 40_000, now: T }));
    const rows: Array<{ key: string | null; type: string; Extra: string | null; table: string | null }> = await db.dataSource.query(`EXPLAIN ${sql}`, params);
    const parts = rows.filter((r) => r.table === 'runs');
    expect(parts).toHaveLength(100);
    for (const part of parts) {
      expect(part.key).toBe('ix_runs_claim');
      expect(['range', 'ref']).toContain(part.type);
      expect(part.Extra ?? '').not.toMatch(/filesort/);
    }
    // Claimed and rolled back (the other plan tests count the runs held).
    const runner = db.dataSource.createQueryRunner();
    await runner.startTransaction('READ COMMITTED');
    try {
      const claimed = await claimDueRuns(runner.manager, {
        takes: tenants.map((tenantId) => ({ tenantId, engineGroup: 'default', limit: 3 })),
        dueBefore: T + 40_000,
        owner: 'e',
        leaseUntil: T + 99,
        now: T,
      });
      expect(claimed).toHaveLength(300);
      expect(new Set(claimed.map((r) => r.tenantId)).size).toBe(100);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('a tenant’s backlog is counted on ix_runs_claim’s ranges, never its rows, and stops at the cap', async () => {
    const rows: Array<{ key: string | null; type: string; Extra: string | null; table: string | null }> = await db.dataSource.query(
      `EXPLAIN SELECT 1 FROM runs FORCE INDEX (ix_runs_claim) WHERE engine_group = ? AND tenant_id = ? AND (state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? OR state = 'COALESCING' AND due_at <= ? OR state = 'CLAIMED') LIMIT ?`,
      ['default', 'acme', T + 40_000, T + 40_000, 1000],
    );
    expect(rows[0]).toMatchObject({ key: 'ix_runs_claim', type: 'range' });
    expect(rows[0].Extra).toMatch(/Using index/);
    expect(await countTenantBacklog(db.dataSource.manager, { tenantId: 'acme', engineGroup: 'default', dueBefore: T + 40_000, now: T + 40_000, cap: 1000 })).toBe(1000);
    expect(await countTenantBacklog(db.dataSource.manager, { tenantId: 't7', engineGroup: 'default', dueBefore: T + 40_000, now: T + 40_000, cap: 1000 })).toBe(5);
  });

  it('the START_LATE scan reads only runs fired the least start deadline ago, a range of ix_runs_late', async () => {
    const rowsRead = async (firedBefore: number, group = 'default') => {
      const rows: Array<{ table: string; key: string | null; type: string; rows: number }> = await db.dataSource.query(`EXPLAIN ${findLateRunsSql(1, 'mysql')}`, [group, firedBefore, firedBefore, T + 40_000, 200]);
      const r = rows.find((x) => x.table === 'r');
      expect(r).toMatchObject({ key: 'ix_runs_late', type: 'range' });
      return Number(r!.rows);
    };
    // The group's ~10,000 PENDING and CLAIMED runs, fired from T to T + 30,000: all read when the bound is now, ~1,000 when it is T + 1,000.
    expect(await rowsRead(T + 40_000)).toBeGreaterThan(8_000);
    expect(await rowsRead(T + 1_000)).toBeLessThan(2_000);
    // A tenant's backlog in a group of its own, fired long ago: 1,500 runs waiting for their rate key's tokens due from
    // T + 100,000 on, 1,500 retries in a backoff that ends from T + 100,000 on, and 50 whose tokens were due at T.
    // Only the latter are read: the waiting ones are not in a range.
    const waiting = Array.from({ length: 3050 }, (_, i) => {
      const [state, attempt] = i < 1500 ? ['PENDING', 1] : i < 3000 ? ['RETRY_WAIT', 2] : ['PENDING', 1];
      const from = i < 3000 ? T + 100_000 + i : T;
      return `('acme', 1, 'rated', '${state}', 'EVENT', 'w:${i}', ${attempt}, 0, '{}', ${T - 100_000 + i}, ${from}, ${from}, ${T}, ${T})`;
    });
    await db.dataSource.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, late_from_at, created_at, updated_at) VALUES ${waiting.join(',')}`,
    );
    await db.dataSource.query('ANALYZE TABLE runs');
    expect(await rowsRead(T + 1_000, 'rated')).toBeLessThan(200);
    expect(await rowsRead(T + 200_000, 'rated')).toBeGreaterThan(2_500);
    const plan = await explain(db.dataSource, 'SELECT MIN(start_deadline_ms) AS least FROM tasks', []);
    expect(plan.Extra).toMatch(/Select tables optimized away/);
    expect(await readLeastStartDeadline(db.dataSource.manager)).toBe(1000);
  });

  it('the UP executors are read through ix_executors_state: the rows of executors long DOWN are not', async () => {
    // 20 tenants of the group; one of them left 3,000 DOWN executors behind (pods restarted at new addresses), 2 are UP.
    for (let i = 0; i < 20; i++) await seedTenant(db.dataSource, { id: `x${i}`, engineGroup: 'default' });
    const rows = Array.from({ length: 3002 }, (_, i) => `('x0', 'app', 'http://10.0.${i >> 8}.${i & 255}:8080', 4, '${i < 3000 ? 'DOWN' : 'UP'}', ${T}, ${i < 3000 ? T - 1_000_000 : T})`);
    await db.dataSource.query(`INSERT INTO executors (tenant_id, app, url, capacity, state, registered_at, heartbeat_at) VALUES ${rows.join(',')}`);
    await db.dataSource.query('ANALYZE TABLE executors, tenants');
    for (const [sql, params] of [
      [findUpExecutorsSql(1), ['default']],
      [findSilentExecutorsSql(1), ['default', T - 30_000]],
    ] as const) {
      const plan: Array<{ table: string; key: string | null; rows: number | string }> = await db.dataSource.query(`EXPLAIN ${sql}`, [...params]);
      const executors = plan.find((p) => p.table === 'e');
      expect(executors, JSON.stringify(plan)).toMatchObject({ key: 'ix_executors_state' });
      expect(Number(executors!.rows)).toBeLessThan(100);
    }
    expect((await findUpExecutors(db.dataSource.manager, ['default'])).map((e) => e.url)).toEqual(['http://10.0.11.184:8080', 'http://10.0.11.185:8080']);
  });

  it('lease renewal reads one engine’s runs through ix_runs_lease', async () => {
    const plan = await explain(db.dataSource, FIND_LEASED_RUNS_SQL, ['node-1']);
    expect(plan).toMatchObject({ key: 'ix_runs_lease', type: 'range' });
  });

  it('the lease holders are found by a loose index scan, one dive per (state, owner)', async () => {
    const plan = await explain(db.dataSource, FIND_LEASE_HOLDERS_SQL, []);
    expect(plan).toMatchObject({ key: 'ix_runs_lease' });
    expect(plan.Extra).toMatch(/Using index for group-by/);
    const holders = await findLeaseHolders(db.dataSource.manager);
    expect(holders).toHaveLength(4); // CLAIMED by node-1 and node-3, DISPATCHED by node-0 and node-2
    expect(holders.find((h) => h.owner === 'node-1' && h.state === 'CLAIMED')?.earliestLeaseUntil).toBe(T + 1);
  });

  it('the planner’s task claim reads ix_tasks_plan in next_fire_at order', async () => {
    const plan = await explain(db.dataSource, claimDueTasksSql('mysql'), ['default', T + 60_000, 200]);
    expect(plan).toMatchObject({ key: 'ix_tasks_plan', type: 'range' });
    expect(plan.Extra ?? '').not.toMatch(/filesort/);
  });

  it('the planner’s look before its claim reads ix_tasks_plan, one range per group, without a sort', async () => {
    const plan = await explain(db.dataSource, anyTaskDueSql(2), ['default', 'reports', T + 60_000]);
    expect(plan).toMatchObject({ key: 'ix_tasks_plan', type: 'range' });
    expect(plan.Extra ?? '').not.toMatch(/filesort/);
  });

  it("the settler's sweep reads only fan-out runs (ACCEPTED without a deadline) through ix_runs_deadline, and their shards through ix_runs_parent", async () => {
    const rows: Array<{ table: string; key: string | null; type: string }> = await db.dataSource.query(`EXPLAIN ${findSettleableFanOutsSql(1, 50)}`, ['default']);
    expect(rows.find((r) => r.table === 'r')).toMatchObject({ key: 'ix_runs_deadline', type: 'ref' });
    expect(rows.find((r) => r.table === 's')?.key).toBe('ix_runs_parent');
  });
});
