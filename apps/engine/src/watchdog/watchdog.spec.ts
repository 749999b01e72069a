import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { ManualClock } from '@baton/domain';
import { inTransaction } from '@baton/persistence';
import { PATHS, type ExecutorHeartbeat } from '@baton/protocol';
import {
  alarms,
  eventually,
  FakeExecutor,
  GROUP,
  NODE_ID,
  readRun,
  runsOfTask,
  seedExecutor,
  seedRun,
  seedTask,
  seedTenant,
  signedPost,
  startDispatchSide,
  TENANT,
  type DispatchSideApp,
  type SeededTask,
} from '../testing/dispatch-side-kit';
import { NodeLiveness } from '../common/node-liveness';
import { RunClaims } from '../runs/run-claims';
import { HAND_BACK_MARGIN_MS } from './sent-ahead-hand-backs';
import { Watchdog } from './watchdog';

const DEAD_AFTER = 10_000;
const GRACE = 5_000;

describe.each(TEST_DATABASES)('watchdog on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let watchdog: Watchdog;
  let executor: FakeExecutor;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, { executorDeadAfterMs: DEAD_AFTER, executorGraceMs: GRACE });
    watchdog = engine.get(Watchdog);
    executor = await new FakeExecutor().start();
  });
  afterAll(async () => {
    await engine?.close();
    await executor?.stop();
  });
  beforeEach(async () => {
    await db.clear();
    executor.reset();
    await seedTenant(db.dataSource);
  });

  async function executing(task: SeededTask, executorId: number, more: Parameters<typeof seedRun>[2] = {}): Promise<number> {
    const now = Date.now();
    return seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, executorId, dispatchedAt: now - 1_000, acceptedAt: now - 1_000, deadlineAt: now + 60_000, ...more });
  }

  describe('START_LATE', () => {
    it('alarms a run not dispatched by its start deadline — once, however many watchdogs look', async () => {
      const task = await seedTask(db.dataSource, { name: 'report', startDeadlineMs: 10_000 });
      const late = await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 15_000 });
      const claimedLate = await seedRun(db.dataSource, task, { state: 'CLAIMED', scheduledAt: Date.now() - 11_000 });
      await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 5_000 }); // within its deadline
      await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: Date.now() - 60_000, dispatchedAt: Date.now() - 59_000 }); // started
      await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() + 60_000 }); // planned ahead

      const reports = await Promise.all([watchdog.tick(), watchdog.tick(), watchdog.tick()]);
      expect(reports.reduce((sum, r) => sum + r.late, 0)).toBe(2);
      const raised = await alarms(db.dataSource, 'START_LATE');
      expect(raised.map((x) => x.runId).sort()).toEqual([late, claimedLate].sort());
      expect(raised.every((x) => x.severity === 'WARNING' && x.taskId === task.id && x.publishedAt === null)).toBe(true);
      expect((await readRun(db.dataSource, late)).lateAlarmedAt).not.toBeNull();

      expect((await watchdog.tick()).late).toBe(0);
      expect(await alarms(db.dataSource, 'START_LATE')).toHaveLength(2);
    });

    it('measures a retry from its own due time, and skips a run that already started once', async () => {
      const task = await seedTask(db.dataSource, { name: 'report', startDeadlineMs: 10_000 });
      await seedRun(db.dataSource, task, { state: 'RETRY_WAIT', claimedBy: null, attempt: 2, scheduledAt: Date.now() - 60_000, dueAt: Date.now() - 1_000 });
      const stuckRetry = await seedRun(db.dataSource, task, { state: 'RETRY_WAIT', claimedBy: null, attempt: 2, scheduledAt: Date.now() - 60_000, dueAt: Date.now() - 20_000 });
      // Released after its engine died mid-dispatch: it did start on time.
      await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 60_000, dispatchedAt: Date.now() - 59_000 });
      expect((await watchdog.tick()).late).toBe(1);
      expect((await alarms(db.dataSource, 'START_LATE')).map((x) => x.runId)).toEqual([stuckRetry]);
    });
    it('counts a run that waited for its rate key from its token’s time; a run deferred by dispatch trouble stays late from its fire time', async () => {
      const clock = new ManualClock(Date.now());
      const fired = clock.now();
      const side = await startDispatchSide(db.dataSource, { nodeId: 'node-clock' }, { clock });
      try {
        // One token every 20 s, none saved up: of three runs fired at once, one goes, the others wait 20 s and 40 s.
        const rated = await seedTask(db.dataSource, { name: 'notify', startDeadlineMs: 10_000 });
        await db.dataSource.query('UPDATE tasks SET key_rate = ? WHERE id = ?', [JSON.stringify({ key: 'customerId', perSecond: 0.05, burst: 1 }), rated.id]);
        const ids: number[] = [];
        for (let i = 0; i < 3; i++) ids.push(await seedRun(db.dataSource, rated, { state: 'PENDING', claimedBy: null, scheduledAt: fired }));
        // No executor took this one: back in 500 ms, its instant kept (deferRunDispatch).
        const plain = await seedTask(db.dataSource, { name: 'report', startDeadlineMs: 10_000 });
        const busy = await seedRun(db.dataSource, plain, { state: 'RETRY_WAIT', claimedBy: null, scheduledAt: fired, dueAt: fired + 500, instantAt: fired });

        const claimed = await inTransaction(db.dataSource, (em) => side.get(RunClaims).claim(em, [{ tenantId: TENANT, engineGroup: GROUP, limit: 10 }], { dueBefore: fired + 1, now: fired }));
        expect(claimed.map((r) => r.runId)).toEqual([ids[0]]);
        const [second, third] = await Promise.all(ids.slice(1).map((id) => readRun(db.dataSource, id)));
        expect([second, third].map((r) => [r.state, r.dueAt])).toEqual([
          ['PENDING', fired + 20_000],
          ['PENDING', fired + 40_000],
        ]);
        await db.dataSource.query("UPDATE runs SET state = 'DISPATCHED', dispatched_at = ? WHERE id = ?", [fired, ids[0]]);
        const dog = side.get(Watchdog);
        const lateAt = async (at: number) => {
          clock.set(at);
          await dog.tick();
          return (await alarms(db.dataSource, 'START_LATE')).map((x) => x.runId);
        };

        // 15 s after the fire: the run no executor took is late; the two waiting for their tokens are not.
        expect(await lateAt(fired + 15_000)).toEqual([busy]);
        // Each is late a start deadline after its token's time, not before.
        expect(await lateAt(fired + 30_000)).toEqual([busy]);
        expect(await lateAt(fired + 30_001)).toEqual([busy, ids[1]]);
        expect(await lateAt(fired + 50_000)).toEqual([busy, ids[1]]);
        expect(await lateAt(fired + 50_001)).toEqual([busy, ids[1], ids[2]]);
        const messages = (await alarms(db.dataSource, 'START_LATE')).map((x) => x.message);
        expect(messages[0]).toMatch(/not started 15000 ms after its fire time/);
        expect(messages[1]).toMatch(/not started 10001 ms after its admission time/);
      } finally {
        await side.close();
      }
    });

    it('reads only runs fired at least the least start deadline ago, and a deadline shortened counts at the next tick', async () => {
      const patient = await seedTask(db.dataSource, { name: 'patient', startDeadlineMs: 60_000 });
      const eager = await seedTask(db.dataSource, { name: 'eager', startDeadlineMs: 30_000 });
      const eagerLate = await seedRun(db.dataSource, eager, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 40_000 });
      const patientRun = await seedRun(db.dataSource, patient, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 5_000 });
      expect((await watchdog.tick()).late).toBe(1);
      expect((await alarms(db.dataSource, 'START_LATE')).map((x) => x.runId)).toEqual([eagerLate]);

      // The patient task's deadline cut to 1 s: its run, 5 s old, is late now (the bound was 30 s a tick ago).
      await db.dataSource.query('UPDATE tasks SET start_deadline_ms = 1000 WHERE id = ?', [patient.id]);
      expect((await watchdog.tick()).late).toBe(1);
      expect((await alarms(db.dataSource, 'START_LATE')).map((x) => x.runId).sort()).toEqual([eagerLate, patientRun].sort());
    });
  });

  describe('TIMEOUT', () => {
    it('times out a run past its deadline: TIMED_OUT, TIMEOUT alarm, abort request to its executor', async () => {
      const executorId = await seedExecutor(db.dataSource, { url: executor.url });
      const task = await seedTask(db.dataSource, { name: 'slow', retryMaxAttempts: 1 });
      const overdue = await executing(task, executorId, { deadlineAt: Date.now() - 1 });
      const fine = await executing(task, executorId);

      const before = Date.now();
      const [r1, r2] = await Promise.all([watchdog.tick(), watchdog.tick()]);
      expect(r1.timedOut + r2.timedOut).toBe(1);
      // Its end is the engine's verdict, on the engine's clock (the console labels it so).
      const ended = await readRun(db.dataSource, overdue);
      expect(ended).toMatchObject({ state: 'TIMED_OUT', deadlineAt: null, finishedClock: 'engine' });
      expect(ended.finishedAt).toBeGreaterThanOrEqual(before);
      expect((await readRun(db.dataSource, fine)).state).toBe('ACCEPTED');
      expect(await alarms(db.dataSource)).toMatchObject([{ type: 'TIMEOUT', severity: 'CRITICAL', runId: overdue, taskId: task.id }]);

      const abort = await eventually(async () => executor.aborts[0], 'abort request');
      expect(abort.path).toBe(`/baton/runs/${overdue}/abort`);
      expect(abort.signatureOk).toBe(true);
      expect(abort.body).toEqual({ runId: overdue, attempt: 1, reason: 'TIMEOUT' });
      expect(executor.aborts).toHaveLength(1);

      // The executor's ABORTED callback that follows is stale.
      const late = await signedPost(engine.url, PATHS.callback, { runId: overdue, attempt: 1, tenantId: TENANT, outcome: 'ABORTED', abortReason: 'TIMEOUT' });
      expect(late.status).toBe(409);
    });

    it("names a timed-out run's reported start, and its timeout, in its error and alarm; one not known to start says its state", async () => {
      const executorId = await seedExecutor(db.dataSource, { url: executor.url });
      const started = await seedTask(db.dataSource, { name: 'started', retryMaxAttempts: 1, timeoutMs: 30_000 });
      const unstarted = await seedTask(db.dataSource, { name: 'unstarted', retryMaxAttempts: 1 });
      const startedAt = Date.UTC(2026, 0, 1, 9, 30);
      const ran = await executing(started, executorId, { deadlineAt: Date.now() - 1, startedAt });
      const waited = await executing(unstarted, executorId, { deadlineAt: Date.now() - 1 });
      expect((await watchdog.tick()).timedOut).toBe(2);
      const startedError = `did not finish within its timeout (30000 ms from its dispatch): started at 2026-01-01T09:30:00.000Z on executor ${executor.url}, no result by its deadline`;
      const unstartedError = `did not finish within its timeout (ACCEPTED on executor ${executor.url})`;
      expect((await readRun(db.dataSource, ran)).error).toBe(startedError);
      expect((await readRun(db.dataSource, waited)).error).toBe(unstartedError);
      const messages = new Map((await alarms(db.dataSource, 'TIMEOUT')).map((a) => [a.runId, a.message]));
      expect(messages.get(ran)).toContain(startedError);
      expect(messages.get(waited)).toContain(unstartedError);
      await eventually(async () => executor.aborts.length === 2, 'two abort requests');
    });

    it('a timed-out run with attempts left goes to RETRY_WAIT as attempt 2; a DISPATCHED run whose ack was lost times out too', async () => {
      const executorId = await seedExecutor(db.dataSource, { url: executor.url });
      const task = await seedTask(db.dataSource, { name: 'slow', retryMaxAttempts: 2 });
      const retried = await executing(task, executorId, { deadlineAt: Date.now() - 1 });
      const unacked = await seedRun(db.dataSource, task, { state: 'DISPATCHED', executorId, attempt: 2, dispatchedAt: Date.now() - 70_000, deadlineAt: Date.now() - 10_000 });
      expect((await watchdog.tick()).timedOut).toBe(2);
      expect(await readRun(db.dataSource, retried)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, claimedBy: null });
      expect(await readRun(db.dataSource, unacked)).toMatchObject({ state: 'TIMED_OUT', attempt: 2 });
      expect((await alarms(db.dataSource)).map((x) => [x.type, x.severity, x.runId])).toEqual(
        expect.arrayContaining([
          ['TIMEOUT', 'WARNING', retried],
          ['TIMEOUT', 'CRITICAL', unacked],
        ]),
      );
      await eventually(async () => executor.aborts.length === 2, 'two abort requests');
    });
  });

  describe('EXECUTOR_DOWN', () => {
    it('marks a silent executor DOWN with one alarm, and reconciles its runs after the grace period', async () => {
      const now = Date.now();
      const silentFor = DEAD_AFTER + 1_000; // dead, still within the grace
      const deadId = await seedExecutor(db.dataSource, { url: executor.url, heartbeatAt: now - silentFor });
      const aliveId = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9', heartbeatAt: now });
      const task = await seedTask(db.dataSource, { name: 'job', retryMaxAttempts: 2 });
      const once = await seedTask(db.dataSource, { name: 'once', retryMaxAttempts: 1 });
      const orphan = await executing(task, deadId);
      const orphanFinal = await executing(once, deadId);
      const survivor = await executing(task, aliveId);

      const reports = await Promise.all([watchdog.tick(), watchdog.tick()]);
      expect(reports.reduce((s, r) => s + r.executorsDown, 0)).toBe(1);
      expect(reports.reduce((s, r) => s + r.reconciled, 0)).toBe(0); // grace not over yet
      const states = (await db.dataSource.query('SELECT id, state FROM executors ORDER BY id')) as Array<{ id: number; state: string }>;
      expect(states.map((s) => [Number(s.id), s.state])).toEqual([
        [deadId, 'DOWN'],
        [aliveId, 'UP'],
      ]);
      expect(await alarms(db.dataSource)).toMatchObject([{ type: 'EXECUTOR_DOWN', severity: 'CRITICAL', executorId: deadId, taskId: null }]);
      expect((await readRun(db.dataSource, orphan)).state).toBe('ACCEPTED');

      // The grace passes with no word from the executor.
      await db.dataSource.query('UPDATE executors SET heartbeat_at = ? WHERE id = ?', [now - DEAD_AFTER - GRACE - 1_000, deadId]);
      expect((await watchdog.tick()).reconciled).toBe(2);
      expect(await readRun(db.dataSource, orphan)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, executorId: null });
      expect(await readRun(db.dataSource, orphanFinal)).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/went DOWN/), finishedClock: 'engine' });
      expect((await readRun(db.dataSource, survivor)).state).toBe('ACCEPTED');
      expect((await alarms(db.dataSource)).map((x) => x.type).sort()).toEqual(['EXECUTOR_DOWN', 'FAILED', 'RETRYING']);
      expect((await watchdog.tick()).reconciled).toBe(0);
    });

    it("ends the attempts an executor's earlier process took with it once its new process's heartbeat lists what it holds", async () => {
      const now = Date.now();
      const id = await seedExecutor(db.dataSource, { url: executor.url });
      const other = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9' });
      const task = await seedTask(db.dataSource, { name: 'job', retryMaxAttempts: 2 });
      const once = await seedTask(db.dataSource, { name: 'once', retryMaxAttempts: 1 });
      const lost = await executing(task, id, { dispatchedAt: now - 60_000 });
      const lostFinal = await executing(once, id, { dispatchedAt: now - 60_000 });
      const held = await executing(task, id, { dispatchedAt: now - 60_000 });
      const sentToNew = await executing(task, id, { dispatchedAt: now - 100 });
      const elsewhere = await executing(task, other, { dispatchedAt: now - 60_000 });
      const beat = (more: Partial<ExecutorHeartbeat>) =>
        signedPost(engine.url, PATHS.heartbeat, { tenantId: TENANT, app: 'billing', url: executor.url, capacity: 8, inFlight: 1, handlers: ['job'], startedAt: now - 1_000, active: [{ runId: held, attempt: 1 }], ...more });
      // Its spool still replaying (an outcome of the old process may be in it): nothing yet.
      expect((await beat({ spooled: 1 })).status).toBe(200);
      expect((await watchdog.tick()).reconciled).toBe(0);
      expect((await beat({ spooled: 0 })).status).toBe(200);
      expect((await watchdog.tick()).reconciled).toBe(2);
      expect(await readRun(db.dataSource, lost)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, error: expect.stringMatching(/restarted .* lost with the process/) });
      expect((await readRun(db.dataSource, lostFinal)).state).toBe('FAILED');
      for (const kept of [held, sentToNew, elsewhere]) expect((await readRun(db.dataSource, kept)).state).toBe('ACCEPTED');
      // The same process heard again: nothing more.
      expect((await beat({ spooled: 0, active: [] })).status).toBe(200);
      expect((await watchdog.tick()).reconciled).toBe(0);
      expect((await readRun(db.dataSource, held)).state).toBe('ACCEPTED');
    });

    /** The sent-ahead lease with DEAD_AFTER (heartbeats every 3,333 ms: 6,666 ms), and the hand-back's margin. */
    const BEYOND = 6_666 + HAND_BACK_MARGIN_MS;

    it('hands back at once what a silent executor of protocol 3 held for instants past its lease: dispatched again, not counted as an attempt', async () => {
      const now = Date.now();
      const heardAt = now - DEAD_AFTER - 1_000; // DOWN at this tick
      const lease3 = await seedExecutor(db.dataSource, { url: executor.url, heartbeatAt: heardAt, protocolVersion: 3 });
      const lease2 = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9', heartbeatAt: heardAt, protocolVersion: 2 });
      const once = await seedTask(db.dataSource, { name: 'once', retryMaxAttempts: 1 });
      const heldAt = (instant: number, executorId: number) => executing(once, executorId, { scheduledAt: instant, dueAt: instant, dispatchedAt: heardAt - 500, acceptedAt: heardAt - 500 });
      const beyond = await heldAt(heardAt + BEYOND + 1, lease3);
      const later = await heldAt(heardAt + 50_000, lease3);
      const within = await heldAt(heardAt + BEYOND - 100, lease3); // may have started: a cut-off executor starts it
      const protocol2 = await heldAt(heardAt + 50_000, lease2); // keeps no lease: may have started whenever

      const report = await watchdog.tick();
      expect(report.executorsDown).toBe(2);
      for (const [id, instant] of [
        [beyond, heardAt + BEYOND + 1],
        [later, heardAt + 50_000],
      ]) {
        expect(await readRun(db.dataSource, id)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, executorId: null, error: expect.stringMatching(/^handed back: sent ahead .* never started it/) });
        // Sent again for its own instant: due now, its instant kept.
        const [row] = (await db.dataSource.query('SELECT due_at, instant_at FROM runs WHERE id = ?', [id])) as Array<{ due_at: number; instant_at: number }>;
        expect([Number(row.instant_at), Number(row.due_at) <= Date.now()]).toEqual([instant, true]);
      }
      const attempts = (await db.dataSource.query('SELECT run_id, attempt, state FROM run_attempts ORDER BY run_id')) as Array<{ run_id: number; attempt: number; state: string }>;
      expect(attempts.map((a) => [Number(a.run_id), Number(a.attempt), a.state])).toEqual([
        [beyond, 1, 'HANDED_BACK'],
        [later, 1, 'HANDED_BACK'],
      ]);
      for (const id of [within, protocol2]) expect((await readRun(db.dataSource, id)).state).toBe('ACCEPTED');
      const fences = (await db.dataSource.query('SELECT id, hand_backs FROM executors ORDER BY id')) as Array<{ id: number; hand_backs: number }>;
      expect(fences.map((f) => [Number(f.id), Number(f.hand_backs)])).toEqual([
        [lease3, 1],
        [lease2, 0],
      ]);
      expect((await alarms(db.dataSource)).map((a) => a.type)).toEqual(['EXECUTOR_DOWN', 'EXECUTOR_DOWN']);

      // Not an attempt spent: the task's one attempt is the next one, which fails for good on its own.
      await db.dataSource.query("UPDATE runs SET state = 'ACCEPTED', executor_id = ?, claimed_by = ? WHERE id = ?", [lease2, NODE_ID, beyond]);
      const failed = await signedPost(engine.url, PATHS.callback, { runId: beyond, attempt: 2, tenantId: TENANT, outcome: 'FAILED', error: 'boom' });
      expect(failed.status).toBe(200);
      expect(await readRun(db.dataSource, beyond)).toMatchObject({ state: 'FAILED', attempt: 2 });
      expect((await alarms(db.dataSource, 'FAILED'))[0].message).toMatch(/attempt 1 of 1, after 1 handed back unstarted/);

      // The grace passes (its last heartbeat and the run's instant as long ago): what may have started ends as lost, its error saying no start was reported.
      await db.dataSource.query('UPDATE executors SET heartbeat_at = heartbeat_at - ?', [GRACE]);
      await db.dataSource.query('UPDATE runs SET scheduled_at = scheduled_at - ?, due_at = due_at - ? WHERE id = ?', [GRACE, GRACE, within]);
      await watchdog.tick();
      expect(await readRun(db.dataSource, within)).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/went DOWN .*\(no start of it was reported: it may never have started/) });
      expect((await readRun(db.dataSource, later)).state).toBe('RETRY_WAIT');
    });

    it('does not count silence while this node could not record heartbeats (its database down): DOWN the dead-after period after it records again, a dead executor on time', async () => {
      const clock = new ManualClock(Date.now());
      const side = await startDispatchSide(db.dataSource, { nodeId: 'node-outage', executorDeadAfterMs: DEAD_AFTER, executorGraceMs: GRACE }, { clock });
      try {
        const liveness = side.get(NodeLiveness);
        const dog = side.get(Watchdog);
        const period = side.config.heartbeatMs;
        const T = clock.now();
        let last = 0;
        /** This node's heartbeats written every period from `from` up to `to` (the clock ends there). */
        const beats = (from: number, to: number) => {
          for (let at = from; at <= to; at += period) {
            clock.set(at);
            liveness.proven(at);
            last = at;
          }
          clock.set(to);
        };
        /** Its heartbeats go on every period, nothing missed, up to `at`; then a tick. */
        const downAt = async (at: number) => {
          beats(last + period, at);
          return (await dog.tick()).executorsDown;
        };
        // The database is down from T − 20 s to T − 5 s: this node writes no heartbeat, and answers
        // the executors' heartbeats 500 — the last it recorded are from before.
        beats(T - 60_000, T - 20_000);
        const back = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/back', heartbeatAt: T - 20_000 });
        const dead = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/dead', heartbeatAt: T - 20_000 });
        clock.set(T - 5_000 - period);
        expect((await dog.tick()).executorsDown).toBe(0); // not recording: its last heartbeat is a break old
        beats(T - 5_000, T);
        expect((await dog.tick()).executorsDown).toBe(0); // 20 s without a recorded heartbeat, 15 s of it the outage's
        // The executors heartbeat again as soon as the engines answer; the dead one does not.
        await db.dataSource.query('UPDATE executors SET heartbeat_at = ? WHERE id = ?', [T - 4_000, back]);
        expect(await downAt(T + 4_999)).toBe(0);
        expect(await downAt(T + 5_001)).toBe(1); // silent for the dead-after period since the database came back
        // With the database fine, a dead executor is DOWN the moment it has been silent that long.
        const later = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/later', heartbeatAt: T + 6_000 });
        await db.dataSource.query('UPDATE executors SET heartbeat_at = ? WHERE id = ?', [T + 20_000, back]);
        expect(await downAt(T + 6_000 + DEAD_AFTER)).toBe(0);
        expect(await downAt(T + 6_000 + DEAD_AFTER + 1)).toBe(1);
        const states = (await db.dataSource.query('SELECT id, state FROM executors ORDER BY id')) as Array<{ id: number; state: string }>;
        expect(states.map((s) => [Number(s.id), s.state])).toEqual([
          [back, 'UP'],
          [dead, 'DOWN'],
          [later, 'DOWN'],
        ]);
        expect((await alarms(db.dataSource, 'EXECUTOR_DOWN')).map((a) => a.executorId)).toEqual([dead, later]);
      } finally {
        await side.close();
      }
    });

    it("counts a run handed back twice as no attempt: a task of two attempts retries the first that ran", async () => {
      const now = Date.now();
      const id = await seedExecutor(db.dataSource, { url: executor.url, heartbeatAt: now - DEAD_AFTER - 1_000, protocolVersion: 3 });
      const twice = await seedTask(db.dataSource, { name: 'twice', retryMaxAttempts: 2 });
      const runId = await executing(twice, id, { attempt: 3, instantAt: now });
      await db.dataSource.query("INSERT INTO run_attempts (tenant_id, run_id, attempt, state, due_at, ended_at) VALUES (?, ?, 1, 'HANDED_BACK', ?, ?), (?, ?, 2, 'HANDED_BACK', ?, ?)", [TENANT, runId, now, now, TENANT, runId, now, now]);
      expect((await signedPost(engine.url, PATHS.callback, { runId, attempt: 3, tenantId: TENANT, outcome: 'FAILED', error: 'boom' })).status).toBe(200);
      expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'RETRY_WAIT', attempt: 4 });
    });

    it('an executor of protocol 3 that comes back after a hand-back is told so by the ack (handBacks)', async () => {
      const now = Date.now();
      const id = await seedExecutor(db.dataSource, { url: executor.url, heartbeatAt: now - DEAD_AFTER - 1_000, protocolVersion: 3 });
      const once = await seedTask(db.dataSource, { name: 'once', retryMaxAttempts: 1 });
      const beat = () => signedPost(engine.url, PATHS.heartbeat, { tenantId: TENANT, app: 'billing', url: executor.url, capacity: 8, inFlight: 1, handlers: ['once'], protocolVersion: 3 });
      await executing(once, id, { instantAt: now + 30_000 });
      expect((await watchdog.tick()).executorsDown).toBe(1);
      expect((await beat()).body).toMatchObject({ executorId: id, handBacks: 1 });
      // Nothing more to hand back, nothing moved: the next acks say the same.
      await db.dataSource.query("UPDATE executors SET state = 'DOWN'");
      expect(await watchdog.tick()).toMatchObject({ reconciled: 0 });
      expect((await beat()).body).toMatchObject({ executorId: id, handBacks: 1 });
    });

    it('an executor that comes back and calls back within the grace wins over the reconciliation', async () => {
      const now = Date.now();
      const id = await seedExecutor(db.dataSource, { url: executor.url, heartbeatAt: now - DEAD_AFTER - 1_000 });
      const task = await seedTask(db.dataSource, { name: 'job', retryMaxAttempts: 1 });
      const runId = await executing(task, id);
      expect((await watchdog.tick()).executorsDown).toBe(1);

      const res = await signedPost(engine.url, PATHS.callback, { runId, attempt: 1, tenantId: TENANT, outcome: 'SUCCEEDED', result: 'done' });
      expect(res.status).toBe(200);
      await db.dataSource.query('UPDATE executors SET heartbeat_at = ? WHERE id = ?', [now - DEAD_AFTER - GRACE - 1_000, id]);
      expect((await watchdog.tick()).reconciled).toBe(0);
      expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'SUCCEEDED', result: 'done' });
      expect((await runsOfTask(db.dataSource, task.id)).map((r) => r.state)).toEqual(['SUCCEEDED']);
    });
  });

  it('runs on its own period once started, and stops', async () => {
    const fast = await startDispatchSide(db.dataSource, { nodeId: 'node-fast', watchdogIntervalMs: 50 });
    try {
      const task = await seedTask(db.dataSource, { name: 'report', startDeadlineMs: 1_000 });
      const late = await seedRun(db.dataSource, task, { state: 'PENDING', claimedBy: null, scheduledAt: Date.now() - 5_000 });
      const dog = fast.get(Watchdog);
      expect(dog.isRunning).toBe(false);
      dog.start();
      await eventually(async () => (await alarms(db.dataSource, 'START_LATE')).find((x) => x.runId === late), 'START_LATE by the loop');
      await dog.stop();
      expect(dog.isRunning).toBe(false);
    } finally {
      await fast.close();
    }
  });
});
