import { beforeEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ALL_TASKS, estimatePercentile, HOUR_MS, ManualClock, MAX_PURGE_PERIOD_MS, MINUTE_MS, type Clock } from '@baton/domain';
import { claimDueRuns, deleteEndedRuns, findHistoryWorkSql, readRollups, RetentionPolicyEntity, saveRetentionPolicy } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { readEngineConfig } from '../config/engine-config';
import { GROUP, seedExecutor, seedRun, seedTask, seedTenant, TENANT, type SeededTask } from '../testing/dispatch-side-kit';
import { HistoryJob } from './history-job';
import { SETTLE_LAG_MS } from './rollup-pass';

const DAY = 86_400_000;
/** 2026-11-25 10:00 UTC: whole hours make the expected buckets easy to name. */
const T = Date.UTC(2026, 10, 25, 10, 0, 0);

function job(ds: DataSource, clock: Clock, nodeId = 'node-a'): HistoryJob {
  const config = readEngineConfig({}, { nodeId, groups: [GROUP], historyIntervalMs: 10_000, purgeBatch: 3 });
  return new HistoryJob(ds, config, clock, { held: 0 });
}

async function count(ds: DataSource, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = (await ds.query(sql, params)) as Array<{ n: unknown }>;
  return Number(row.n);
}

describe.each(TEST_DATABASES)('history job on %s', (kind) => {
  const db = useTestDatabase(kind);
  let task: SeededTask;
  let clock: ManualClock;

  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
    task = await seedTask(db.dataSource, { name: 'report' });
    clock = new ManualClock(T);
  });

  /** An ended run: scheduled at `at`, dispatched `late` ms after, ran `ms`. */
  const ended = (at: number, more: { state?: 'SUCCEEDED' | 'FAILED'; late?: number; ms?: number; task?: SeededTask; flowId?: number | null } = {}) =>
    seedRun(db.dataSource, more.task ?? task, {
      state: more.state ?? 'SUCCEEDED',
      scheduledAt: at,
      dispatchedAt: at + (more.late ?? 5),
      startedAt: at + (more.late ?? 5),
      finishedAt: at + (more.late ?? 5) + (more.ms ?? 100),
      claimedBy: null,
      flowId: more.flowId,
    });

  describe('rollups', () => {
    it('rolls ended runs into minute and hour rows, per task and for the tenant, and the same again changes nothing', async () => {
      for (let i = 0; i < 30; i++) await ended(T + i * 10_000, { late: i, ms: 1_000 + i * 100, state: i % 10 === 9 ? 'FAILED' : 'SUCCEEDED' });
      await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: T + 30_000 });
      clock.set(T + 10 * MINUTE_MS);
      const history = job(db.dataSource, clock);
      const report = await history.tick();
      expect(report.get(TENANT)!.rollup).toMatchObject({ runs: 30, more: false }); // past the settle lag already: rolled once, as settled
      const minutes = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: MINUTE_MS, from: T, to: T + HOUR_MS });
      expect(minutes.map((m) => [m.bucketStart - T, m.cell.counts.SUCCEEDED + m.cell.counts.FAILED])).toEqual([
        [0, 6],
        [MINUTE_MS, 6],
        [2 * MINUTE_MS, 6],
        [3 * MINUTE_MS, 6],
        [4 * MINUTE_MS, 6],
      ]);
      const [hour] = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: task.id, spanMs: HOUR_MS, from: T, to: T + HOUR_MS });
      expect(hour.cell.counts).toMatchObject({ SUCCEEDED: 27, FAILED: 3 });
      expect(hour.cell.earlyStarts).toBe(0);
      expect(estimatePercentile(hour.cell.lateness, 50)).toBeGreaterThanOrEqual(14);
      expect(estimatePercentile(hour.cell.duration, 100)).toBeGreaterThanOrEqual(3_900);

      await history.tick();
      const again = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: task.id, spanMs: HOUR_MS, from: T, to: T + HOUR_MS });
      expect(again[0].cell.counts).toEqual(hour.cell.counts);
    });

    it('counts a run started before its instant as an early start, its instant kept in instant_at when a back-off moved due_at', async () => {
      // Refused at T + 9 s, sent again at T + 9.4 s (due_at), started there: 600 ms before its instant.
      await seedRun(db.dataSource, task, { state: 'SUCCEEDED', claimedBy: null, scheduledAt: T + 10_000, dueAt: T + 9_400, instantAt: T + 10_000, dispatchedAt: T + 10_000, startedAt: T + 9_400, finishedAt: T + 9_500 });
      // Deferred past its instant and started at the re-send: late, not early.
      await seedRun(db.dataSource, task, { state: 'SUCCEEDED', claimedBy: null, scheduledAt: T, dueAt: T + 2_000, instantAt: T, dispatchedAt: T + 2_000, startedAt: T + 2_000, finishedAt: T + 2_100 });
      clock.set(T + 10 * MINUTE_MS);
      await job(db.dataSource, clock).tick();
      const [minute] = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: task.id, spanMs: MINUTE_MS, from: T, to: T + HOUR_MS });
      expect(minute.cell.counts.SUCCEEDED).toBe(2);
      expect(minute.cell.earlyStarts).toBe(1);
      const [hour] = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: HOUR_MS, from: T, to: T + HOUR_MS });
      expect(hour.cell.earlyStarts).toBe(1);
    });

    it('takes in an end committed after its minute was first rolled, when the minute settles', async () => {
      await ended(T);
      clock.set(T + 2 * MINUTE_MS);
      const history = job(db.dataSource, clock);
      await history.tick();
      await ended(T + 1_000); // ends inside the minute already rolled, committed late
      await history.tick();
      const early = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: MINUTE_MS, from: T, to: T + MINUTE_MS });
      expect(early[0].cell.counts.SUCCEEDED).toBe(1);
      clock.set(T + MINUTE_MS + SETTLE_LAG_MS + 1);
      await history.tick();
      const settled = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: MINUTE_MS, from: T, to: T + MINUTE_MS });
      expect(settled[0].cell.counts.SUCCEEDED).toBe(2);
    });

    it('gives each tenant to one engine at a time; the other takes over once the lease runs out', async () => {
      await ended(T);
      clock.set(T + 10 * MINUTE_MS);
      const a = job(db.dataSource, clock, 'node-a');
      const b = job(db.dataSource, clock, 'node-b');
      expect((await a.tick()).has(TENANT)).toBe(true);
      await ended(T + 9 * MINUTE_MS); // something to roll up for whoever holds the tenant
      expect((await b.tick()).has(TENANT)).toBe(false);
      clock.advance(61_000);
      expect((await b.tick()).has(TENANT)).toBe(true);
      expect((await a.tick()).has(TENANT)).toBe(false);
      await b.stop(); // releases its tenants at once
      expect((await a.tick()).has(TENANT)).toBe(true);
    });

    it.runIf(kind === 'mysql')("looks for a tenant's ended runs in ix_runs_tenant_finished, from the index alone", async () => {
      const plan = (await db.dataSource.query(`EXPLAIN ${findHistoryWorkSql(1)}`, [T, T, GROUP, 'node-a', T])) as Array<{ table: string; key: string | null; Extra: string | null }>;
      const runs = plan.find((r) => r.table === 'r');
      expect(runs?.key).toBe('ix_runs_tenant_finished');
      expect(runs?.Extra ?? '').toMatch(/Using index/);
    });

    it('visits a tenant only when runs ended since its settled point: an idle tenant costs no statement of its own', async () => {
      await ended(T);
      clock.set(T + 10 * MINUTE_MS);
      const history = job(db.dataSource, clock);
      expect((await history.tick()).has(TENANT)).toBe(true);
      expect((await history.tick()).size).toBe(0);
      clock.advance(2 * MINUTE_MS);
      await ended(T + 10 * MINUTE_MS);
      const report = await history.tick();
      expect(report.get(TENANT)!.rollup.runs).toBe(1);
      expect(report.get(TENANT)!.purge).toBeUndefined(); // rolled up; its purge is not due
      // Rolled, not settled yet: the settle pass comes back for it, then nothing.
      clock.advance(SETTLE_LAG_MS);
      expect((await history.tick()).get(TENANT)!.rollup.runs).toBe(1);
      expect((await history.tick()).has(TENANT)).toBe(false);
      const [minute] = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: MINUTE_MS, from: T + 10 * MINUTE_MS, to: T + 11 * MINUTE_MS });
      expect(minute.cell.counts.SUCCEEDED).toBe(1);
    });
  });

  describe('retention', () => {
    const setPolicy = (taskId: number, p: { runsMs?: number | null; logsMs?: number | null; alarmsMs?: number | null; minRunsKept?: number | null }) =>
      db.dataSource.query(`INSERT INTO retention_policies (tenant_id, task_id, runs_ms, logs_ms, alarms_ms, min_runs_kept, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0)`, [
        TENANT,
        taskId,
        p.runsMs ?? null,
        p.logsMs ?? null,
        p.alarmsMs ?? null,
        p.minRunsKept ?? null,
      ]);
    const runIds = async (t: SeededTask = task) => ((await db.dataSource.query(`SELECT id FROM runs WHERE task_id = ? ORDER BY id`, [t.id])) as Array<{ id: unknown }>).map((r) => Number(r.id));

    /** Runs until the job has nothing left to do (purge batches of 3 here). */
    async function purgeAll(history: HistoryJob): Promise<void> {
      for (let i = 0; i < 10; i++) await history.tick();
    }

    it('purges ended runs older than the retention with their logs, keeps the rest, and counts them first', async () => {
      await setPolicy(0, { runsMs: 2 * DAY });
      const old = [];
      for (let i = 0; i < 5; i++) old.push(await ended(T - 3 * DAY + i * 1_000));
      const recent = await ended(T - DAY);
      const stuck = await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: T - 3 * DAY, claimedBy: null });
      for (const id of [old[0], recent]) {
        await db.dataSource.query(`INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES (?, ?, 1, ?, 'info', 'x')`, [TENANT, id, T - DAY]);
        await db.dataSource.query(`INSERT INTO run_attempt_reports (run_id, attempt, tenant_id, taken_at) VALUES (?, 1, ?, ?)`, [id, TENANT, T - DAY]);
      }
      await purgeAll(job(db.dataSource, clock));
      expect(await runIds()).toEqual([recent, stuck]);
      expect(await count(db.dataSource, `SELECT COUNT(*) AS n FROM run_logs`)).toBe(1);
      expect(await count(db.dataSource, `SELECT COUNT(*) AS n FROM run_attempt_reports`)).toBe(1);
      const [hour] = await readRollups(db.dataSource.manager, { tenantId: TENANT, taskId: ALL_TASKS, spanMs: HOUR_MS, from: T - 3 * DAY - HOUR_MS, to: T - 3 * DAY + HOUR_MS });
      expect(hour.cell.counts.SUCCEEDED).toBe(5); // the purged runs stay in the statistics
    });

    it("keeps each task's newest N, a task's longer override, and the runs of a flow still going", async () => {
      await setPolicy(0, { runsMs: DAY, minRunsKept: 2 });
      const keeper = await seedTask(db.dataSource, { name: 'keeper' });
      await setPolicy(keeper.id, { runsMs: 10 * DAY });
      const flowTask = await seedTask(db.dataSource, { name: 'flow' });
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await ended(T - 5 * DAY + i * HOUR_MS));
      const kept = await ended(T - 5 * DAY, { task: keeper });
      const parent = await ended(T - 4 * DAY, { task: flowTask, flowId: null }); // a root: flow_id null, its flow is its id
      const child = await seedRun(db.dataSource, flowTask, { state: 'PENDING', claimedBy: null, scheduledAt: T, flowId: parent, cause: 'DEPENDENCY' });
      const older = await ended(T - 4 * DAY, { task: flowTask, flowId: null }); // a root written by an older version holds its own id
      await db.dataSource.query(`UPDATE runs SET flow_id = ? WHERE id = ?`, [older, older]);
      const olderChild = await seedRun(db.dataSource, flowTask, { state: 'PENDING', claimedBy: null, scheduledAt: T, flowId: older, cause: 'DEPENDENCY' });
      await purgeAll(job(db.dataSource, clock));
      expect(await runIds()).toEqual(runs.slice(3));
      expect(await runIds(keeper)).toEqual([kept]);
      expect(await runIds(flowTask)).toEqual([parent, child, older, olderChild]);
    });

    it("counts a fan-out run, not its shards, among a task's newest N, and keeps its shards with it", async () => {
      await setPolicy(0, { runsMs: DAY, minRunsKept: 2 });
      const fanOuts = [];
      for (let i = 0; i < 3; i++) {
        const at = T - 5 * DAY + i * HOUR_MS;
        const parent = await ended(at);
        await db.dataSource.query(`UPDATE runs SET shard_total = 3 WHERE id = ?`, [parent]);
        const shards = [];
        for (let k = 0; k < 3; k++) {
          const shard = await ended(at + 10, { flowId: null });
          await db.dataSource.query(`UPDATE runs SET cause = 'SHARD', parent_run_id = ?, shard_index = ?, shard_total = 3 WHERE id = ?`, [parent, k, shard]);
          shards.push(shard);
        }
        fanOuts.push([parent, ...shards]);
      }
      await purgeAll(job(db.dataSource, clock));
      // The newest two fan-out runs (not the newest two of nine shards) stay, each with its shards.
      expect(await runIds()).toEqual([...fanOuts[1], ...fanOuts[2]]);
    });

    it("purges a task that keeps less than its tenant by its own retention", async () => {
      const short = await seedTask(db.dataSource, { name: 'short' });
      await setPolicy(short.id, { runsMs: DAY });
      const gone = await ended(T - 2 * DAY, { task: short });
      const staying = await ended(T - 2 * DAY);
      expect(await runIds(short)).toEqual([gone]);
      await purgeAll(job(db.dataSource, clock));
      expect(await runIds(short)).toEqual([]);
      expect(await runIds()).toEqual([staying]);
    });

    it('purges published alarms past their retention and keeps what the outbox still owes', async () => {
      await setPolicy(0, { alarmsMs: DAY });
      const alarm = (uid: string, raisedAt: number, publishedAt: number | null) =>
        db.dataSource.query(`INSERT INTO alarms (uid, tenant_id, type, severity, message, count, raised_at, published_at) VALUES (?, ?, 'FAILED', 'ERROR', 'm', 1, ?, ?)`, [uid, TENANT, raisedAt, publishedAt]);
      await alarm('old-published', T - 2 * DAY, T - 2 * DAY);
      await alarm('old-unpublished', T - 2 * DAY, null);
      await alarm('new', T - HOUR_MS, T - HOUR_MS);
      const delivery = (createdAt: number, deliveredAt: number | null) =>
        db.dataSource.query(
          `INSERT INTO webhook_deliveries (tenant_id, channel_id, alarm_id, alarm_count, attempts, next_at, delivered_at, failed_at, last_error, created_at) VALUES (?, 1, ?, 1, 1, 0, ?, NULL, NULL, ?)`,
          [TENANT, createdAt, deliveredAt, createdAt],
        );
      await delivery(T - 2 * DAY, T - 2 * DAY); // delivered, old: goes
      await delivery(T - 2 * DAY + 1, null); // still owed: stays
      await delivery(T - HOUR_MS, T - HOUR_MS); // delivered, recent: stays
      await purgeAll(job(db.dataSource, clock));
      const left = ((await db.dataSource.query(`SELECT uid FROM alarms ORDER BY uid`)) as Array<{ uid: string }>).map((r) => r.uid);
      expect(left).toEqual(['new', 'old-unpublished']);
      expect(await count(db.dataSource, `SELECT COUNT(*) AS n FROM webhook_deliveries`)).toBe(2);
    });

    it('purges the idempotency keys of windowed submissions past the runs\' retention, several batches of them, and keeps the recent', async () => {
      await setPolicy(0, { runsMs: 2 * DAY });
      const key = (fireKey: string, createdAt: number, tenantId = TENANT) =>
        db.dataSource.query(`INSERT INTO submission_keys (task_id, fire_key, tenant_id, run_id, created_at) VALUES (?, ?, ?, NULL, ?)`, [task.id, fireKey, tenantId, createdAt]);
      for (let i = 0; i < 7; i++) await key(`k:old-${i}`, T - 3 * DAY + i);
      await key('k:recent', T - DAY);
      await key('k:other-tenant', T - 3 * DAY, 'globex');
      await purgeAll(job(db.dataSource, clock));
      const left = ((await db.dataSource.query(`SELECT fire_key FROM submission_keys ORDER BY fire_key`)) as Array<{ fire_key: string }>).map((r) => r.fire_key);
      expect(left).toEqual(['k:other-tenant', 'k:recent']);
    });

    it('purges executors DOWN since before the runs\' retention, several batches of them, and keeps the UP, the recently DOWN and another tenant\'s', async () => {
      await setPolicy(0, { runsMs: 2 * DAY });
      const gone: number[] = [];
      for (let i = 0; i < 7; i++) gone.push(await seedExecutor(db.dataSource, { url: `http://pod-${i}:9999`, state: 'DOWN', heartbeatAt: T - 3 * DAY + i }));
      const recent = await seedExecutor(db.dataSource, { url: 'http://recent:9999', state: 'DOWN', heartbeatAt: T - DAY });
      // Silent for days but not yet marked DOWN (no engine watched it meanwhile): the watchdog's to judge, not the purge's.
      const up = await seedExecutor(db.dataSource, { url: 'http://up:9999', state: 'UP', heartbeatAt: T - 3 * DAY });
      const other = await seedExecutor(db.dataSource, { url: 'http://pod-0:9999', tenantId: 'globex', state: 'DOWN', heartbeatAt: T - 3 * DAY });
      const ranThere = await ended(T - HOUR_MS);
      await db.dataSource.query('UPDATE runs SET executor_id = ? WHERE id = ?', [gone[0], ranThere]);
      await purgeAll(job(db.dataSource, clock));
      const left = ((await db.dataSource.query('SELECT id FROM executors ORDER BY id')) as Array<{ id: unknown }>).map((r) => Number(r.id));
      expect(left).toEqual([recent, up, other]);
      // The run that went to a purged executor stays, its executor id with it.
      expect(await db.dataSource.query('SELECT executor_id FROM runs WHERE id = ?', [ranThere])).toEqual([{ executor_id: gone[0] }]);
    });

    it('purges key rows no run took for an hour once at rest, keeps those still counting (a bucket refilling, a throttle period going), several batches of them', async () => {
      await db.dataSource.query('UPDATE tasks SET key_rate = ?, key_throttle = ? WHERE id = ?', [JSON.stringify({ key: 'customerId', perSecond: 0.001, burst: 2 }), JSON.stringify({ key: 'customerId', limit: 1, periodMs: 86_400_000, keep: 'LAST' }), task.id]);
      const row = (key: string, usedAt: number | null, more: { tokensMilli?: number; refilledAt?: number; throttleStartedAt?: number; scope?: string } = {}) =>
        db.dataSource.query('INSERT INTO run_keys (tenant_id, key_scope, key_value, rules_task_id, used_at, tokens_milli, refilled_at, throttle_started_at, throttle_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          TENANT, more.scope ?? `t:${task.id}`, key, more.refilledAt === undefined && more.throttleStartedAt === undefined ? null : task.id, usedAt, more.tokensMilli ?? null, more.refilledAt ?? null, more.throttleStartedAt ?? null, more.throttleStartedAt === undefined ? null : 1,
        ]);
      for (let i = 0; i < 7; i++) await row(`idle-${i}`, T - 2 * HOUR_MS + i); // nothing stored: at rest
      await row('legacy', null); // made before used_at was kept
      await row('recent', T - 10 * MINUTE_MS);
      await row('refilling', T - 2 * HOUR_MS, { tokensMilli: 0, refilledAt: T - 2 * HOUR_MS }); // 0.001 a second: 7.2 of 2 tokens back… full
      await row('still-refilling', T - 2 * HOUR_MS, { tokensMilli: 0, refilledAt: T - 10 * MINUTE_MS }); // 0.6 of 2
      await row('throttled', T - 2 * HOUR_MS, { throttleStartedAt: T - 2 * HOUR_MS }); // its day-long period goes on
      // A key group's rows, told at rest by the rate of the task whose run last took their tokens.
      await row('group-idle', T - 2 * HOUR_MS, { scope: 'g:sync' });
      await row('group-still-refilling', T - 2 * HOUR_MS, { tokensMilli: 0, refilledAt: T - 10 * MINUTE_MS, scope: 'g:sync' });
      await purgeAll(job(db.dataSource, clock));
      const left = ((await db.dataSource.query('SELECT key_value FROM run_keys ORDER BY key_value')) as Array<{ key_value: string }>).map((r) => r.key_value);
      expect(left).toEqual(['group-still-refilling', 'recent', 'still-refilling', 'throttled']);
    });

    it('purges a tenant every tenth of its shortest retention (at most every 10 minutes), and a backlog again at the next turn', async () => {
      await setPolicy(0, { runsMs: HOUR_MS });
      const history = job(db.dataSource, clock);
      expect((await history.tick()).get(TENANT)!.purge).toBeDefined();
      clock.advance(6 * MINUTE_MS - 1);
      expect((await history.tick()).get(TENANT)?.purge).toBeUndefined();
      clock.advance(1);
      expect((await history.tick()).get(TENANT)!.purge).toBeDefined();

      // More published alarms than a pass deletes (20 batches of 3): the rest at the next turn.
      await db.dataSource.query('UPDATE retention_policies SET runs_ms = ? WHERE tenant_id = ? AND task_id = 0', [30 * DAY, TENANT]);
      const rows = Array.from({ length: 70 }, (_, i) => [`a-${i}`, TENANT, 'FAILED', 'ERROR', 'm', 1, T - 40 * DAY, T - 40 * DAY]);
      await db.dataSource.query(`INSERT INTO alarms (uid, tenant_id, type, severity, message, count, raised_at, published_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, rows.flat());
      clock.advance(6 * MINUTE_MS);
      expect((await history.tick()).get(TENANT)!.purge).toMatchObject({ alarms: 60, more: true });
      expect((await history.tick()).get(TENANT)!.purge).toMatchObject({ alarms: 10, more: false });
      expect((await history.tick()).get(TENANT)?.purge).toBeUndefined(); // 30 days: every 10 minutes
      // A policy set through the console's door is purged by at the next turn.
      await saveRetentionPolicy(db.dataSource.manager, Object.assign(new RetentionPolicyEntity(), { tenantId: TENANT, taskId: task.id, runsMs: DAY, logsMs: null, alarmsMs: null, minRunsKept: null, updatedAt: T }));
      expect((await history.tick()).get(TENANT)!.purge).toBeDefined();
      expect((await history.tick()).get(TENANT)?.purge).toBeUndefined();
      clock.advance(MAX_PURGE_PERIOD_MS);
      expect((await history.tick()).get(TENANT)!.purge).toBeDefined();
    });

    it('never purges past the point the statistics have settled', async () => {
      await setPolicy(0, { runsMs: 60_000 });
      const run = await ended(T - 2 * MINUTE_MS);
      await job(db.dataSource, clock).tick();
      expect(await runIds()).toEqual([run]); // within SETTLE_LAG_MS: not yet counted for good
      clock.set(T + SETTLE_LAG_MS);
      await purgeAll(job(db.dataSource, clock));
      expect(await runIds()).toEqual([]);
    });

    it.runIf(kind === 'mysql')('does not hold what a claim needs: a claim goes through while a purge transaction is open', async () => {
      const old = [];
      for (let i = 0; i < 20; i++) old.push(await ended(T - 40 * DAY + i));
      for (let i = 0; i < 20; i++) await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 1_000 });
      const purge = db.dataSource.createQueryRunner();
      await purge.connect();
      await purge.startTransaction('READ COMMITTED');
      try {
        expect(await deleteEndedRuns(purge.manager, old)).toBe(20);
        const claim = db.dataSource.createQueryRunner();
        await claim.connect();
        await claim.query('SET SESSION innodb_lock_wait_timeout = 2');
        await claim.startTransaction('READ COMMITTED');
        // A claim that waited for the purge's locks would fail after innodb_lock_wait_timeout (2 s).
        const claimed = await claimDueRuns(claim.manager, { takes: [{ tenantId: TENANT, engineGroup: GROUP, limit: 100 }], owner: 'node-x', dueBefore: Date.now() + 1_000, leaseUntil: Date.now() + 15_000, now: Date.now() });
        await claim.commitTransaction();
        await claim.release();
        expect(claimed).toHaveLength(20);
      } finally {
        await purge.commitTransaction();
        await purge.release();
      }
      expect(await count(db.dataSource, `SELECT COUNT(*) AS n FROM runs WHERE state = 'CLAIMED'`)).toBe(20);
      expect(await count(db.dataSource, `SELECT COUNT(*) AS n FROM runs`)).toBe(20);
    });
  });
});
