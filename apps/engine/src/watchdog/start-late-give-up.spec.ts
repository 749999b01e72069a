import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { ManualClock } from '@baton/domain';
import {
  alarms,
  claimedRunOf,
  eventually,
  FakeExecutor,
  readRun,
  runInState,
  runsOfTask,
  seedExecutor,
  seedRun,
  seedTask,
  seedTenant,
  startDispatchSide,
  TENANT,
  type DispatchSideApp,
  type SeededTask,
  type TaskSeed,
} from '../testing/dispatch-side-kit';
import { DueQueue } from '../dispatch/due-queue';
import { Watchdog } from './watchdog';

const DEADLINE = 10_000;

/**
 * onStartLate GIVE_UP: a run no executor took by its fire time + startDeadlineMs ends FAILED, with
 * its START_LATE alarm saying so; an ALARM task's run keeps waiting. The engine's clock is a
 * ManualClock, set to each instant the watchdog ticks at.
 */
describe.each(TEST_DATABASES)('onStartLate GIVE_UP on %s', (kind) => {
  const db = useTestDatabase(kind);
  const clock = new ManualClock(Date.now());
  let side: DispatchSideApp;
  let peer: DispatchSideApp;
  let executor: FakeExecutor;
  let executorId: number;

  beforeAll(async () => {
    side = await startDispatchSide(db.dataSource, { nodeId: 'node-a' }, { clock });
    peer = await startDispatchSide(db.dataSource, { nodeId: 'node-b' }, { clock });
    executor = await new FakeExecutor().start();
  });
  afterAll(async () => {
    await side?.close();
    await peer?.close();
    await executor?.stop();
  });
  beforeEach(async () => {
    await db.clear();
    executor.reset();
    clock.set(Date.now());
    await seedTenant(db.dataSource);
    // The app's only executor is DOWN: no executor of it is UP.
    executorId = await seedExecutor(db.dataSource, { url: executor.url, state: 'DOWN' });
    await side.refreshRegistry();
  });

  async function task(seed: TaskSeed, onStartLate: 'ALARM' | 'GIVE_UP'): Promise<SeededTask> {
    const seeded = await seedTask(db.dataSource, { startDeadlineMs: DEADLINE, ...seed });
    await db.dataSource.query('UPDATE tasks SET on_start_late = ? WHERE id = ?', [onStartLate, seeded.id]);
    return seeded;
  }

  /** A run fired at `fired`, claimed by node-a and dispatched by it: no executor UP, so it waits in RETRY_WAIT. */
  async function firedWithNoExecutor(of: SeededTask, fired: number, cause: 'SCHEDULE' | 'MANUAL' = 'MANUAL'): Promise<number> {
    const runId = await seedRun(db.dataSource, of, { state: 'CLAIMED', claimedBy: 'node-a', scheduledAt: fired, dueAt: fired, leaseUntil: fired + 60_000, cause, flowId: 'self' });
    side.get(DueQueue).accept([claimedRunOf(of, runId, { scheduledAt: fired, dueAt: fired })]);
    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.error).toMatch(/no executor of app "billing" is UP/);
    return runId;
  }

  const tickAt = async (at: number) => {
    clock.set(at);
    // Two engines of the group at once: each late run is given up (or alarmed) once.
    const [a, b] = await Promise.all([side.get(Watchdog).tick(), peer.get(Watchdog).tick()]);
    return a.late + b.late;
  };

  it('no executor UP: the run is given up at its fire time + start deadline, not before, not retried; its START_LATE says so; an ALARM task’s run keeps waiting', async () => {
    const fired = clock.now();
    const givesUp = await task({ name: 'nightly-export', retryMaxAttempts: 3 }, 'GIVE_UP');
    const waits = await task({ name: 'ledger' }, 'ALARM');
    const given = await firedWithNoExecutor(givesUp, fired);
    const waiting = await firedWithNoExecutor(waits, fired);

    expect(await tickAt(fired + DEADLINE)).toBe(0);
    expect((await readRun(db.dataSource, given)).state).toBe('RETRY_WAIT');
    expect(await alarms(db.dataSource, 'START_LATE')).toEqual([]);

    expect(await tickAt(fired + DEADLINE + 1)).toBe(2);
    const run = await readRun(db.dataSource, given);
    expect([run.state, run.attempt, run.claimedBy, run.finishedAt, run.finishedClock]).toEqual(['FAILED', 1, null, fired + DEADLINE + 1, 'engine']);
    expect(run.error).toMatch(/^given up: not started within startDeadlineMs \(10000 ms\) of its fire time — not sent to an executor of app billing by then \(RETRY_WAIT; its error: Dispatch deferred by \d+ ms: no executor of app "billing" is UP\)$/);
    expect((await readRun(db.dataSource, waiting)).state).toBe('RETRY_WAIT');
    const late = await alarms(db.dataSource, 'START_LATE');
    expect(late.map((a) => [a.runId, a.severity])).toEqual(
      expect.arrayContaining([
        [given, 'CRITICAL'],
        [waiting, 'WARNING'],
      ]),
    );
    expect(late).toHaveLength(2);
    expect(late.find((a) => a.runId === given)?.message).toMatch(/run \d+ \(attempt 1\) given up, not started 10001 ms after its fire time \(start deadline 10000 ms, onStartLate GIVE_UP; RETRY_WAIT\): it ends FAILED/);
    // One alarm for it: the START_LATE that says it was given up, no FAILED or RETRYING beside it.
    expect((await alarms(db.dataSource)).filter((a) => a.runId === given).map((a) => a.type)).toEqual(['START_LATE']);

    // The executor is back: only the run that waited is sent; the given-up one stays FAILED.
    await db.dataSource.query("UPDATE executors SET state = 'UP', heartbeat_at = ? WHERE id = ?", [Date.now(), executorId]);
    await side.refreshRegistry();
    expect(await tickAt(fired + 60_000)).toBe(0);
    expect((await readRun(db.dataSource, given)).state).toBe('FAILED');
  });

  it('a task whose alarm types leave START_LATE out but take FAILED hears of a given-up run as a FAILED alarm', async () => {
    const fired = clock.now();
    const quiet = await task({ name: 'quiet-export', alarmTypes: ['FAILED'] }, 'GIVE_UP');
    const given = await firedWithNoExecutor(quiet, fired);
    expect(await tickAt(fired + DEADLINE + 1)).toBe(1);
    expect((await readRun(db.dataSource, given)).state).toBe('FAILED');
    expect((await alarms(db.dataSource)).filter((a) => a.runId === given).map((a) => [a.type, a.severity])).toEqual([['FAILED', 'CRITICAL']]);
    expect((await alarms(db.dataSource, 'FAILED'))[0].message).toMatch(/given up, not started 10001 ms after its fire time/);
  });

  it('a run held in an engine (CLAIMED, not sent) is given up too, and that engine then drops it instead of sending it', async () => {
    // Fired a deadline ago on the engine's clock, which stays the wall clock's: the executor's sends below are timed by it.
    const now = Date.now();
    const fired = now - DEADLINE - 5;
    const givesUp = await task({ name: 'nightly-export' }, 'GIVE_UP');
    const held = await seedRun(db.dataSource, givesUp, { state: 'CLAIMED', claimedBy: 'node-a', scheduledAt: fired, dueAt: fired, leaseUntil: now + 60_000 });
    expect(await tickAt(now)).toBe(1);
    const run = await readRun(db.dataSource, held);
    expect([run.state, run.claimedBy]).toEqual(['FAILED', null]);
    expect(run.error).toMatch(/of its fire time — not sent to an executor of app billing by then \(CLAIMED\)$/);
    // An executor comes up and node-a gets round to the run it held: its mark is guarded on its claim, nothing is sent.
    await db.dataSource.query("UPDATE executors SET state = 'UP', heartbeat_at = ? WHERE id = ?", [now, executorId]);
    await side.refreshRegistry();
    const control = await seedRun(db.dataSource, givesUp, { state: 'CLAIMED', claimedBy: 'node-a', scheduledAt: now, dueAt: now, leaseUntil: now + 60_000 });
    side.get(DueQueue).accept([claimedRunOf(givesUp, held, { scheduledAt: fired, dueAt: fired }), claimedRunOf(givesUp, control, { scheduledAt: now, dueAt: now })]);
    // The two were handed over together: once the one it could send has reached the executor, the other was dropped.
    await eventually(() => (executor.dispatches.length > 0 ? true : undefined), 'a dispatch');
    expect(executor.dispatches.map((d) => d.body.runId)).toEqual([control]);
    expect((await readRun(db.dataSource, held)).state).toBe('FAILED');
  });

  it('a run a dispatch got no answer for (its executor may have it) or one already sent is never given up: START_LATE only, or nothing', async () => {
    const fired = clock.now();
    const givesUp = await task({ name: 'nightly-export' }, 'GIVE_UP');
    const noAnswer = await seedRun(db.dataSource, givesUp, { state: 'RETRY_WAIT', claimedBy: null, scheduledAt: fired, dueAt: fired + 500, instantAt: fired, executorId });
    const sent = await seedRun(db.dataSource, givesUp, { state: 'DISPATCHED', claimedBy: 'node-a', scheduledAt: fired, dispatchedAt: fired + 1, executorId, deadlineAt: fired + 60_000 });
    expect(await tickAt(fired + DEADLINE + 1)).toBe(1);
    expect((await readRun(db.dataSource, noAnswer)).state).toBe('RETRY_WAIT');
    expect((await readRun(db.dataSource, sent)).state).toBe('DISPATCHED');
    expect((await alarms(db.dataSource, 'START_LATE')).map((a) => [a.runId, a.severity])).toEqual([[noAnswer, 'WARNING']]);
  });

  it('its follow-ups are a failed run’s: an ON_FAILURE child fires, an ON_SUCCESS one does not, a fixed-delay chain goes on', async () => {
    const fired = clock.now();
    const chain = await task({ name: 'poll-feed', triggerKind: 'FIXED_DELAY', intervalMs: 30_000 }, 'GIVE_UP');
    const onFailure = await task({ name: 'page-on-call' }, 'ALARM');
    const onSuccess = await task({ name: 'publish' }, 'ALARM');
    for (const [child, condition] of [
      [onFailure, 'ON_FAILURE'],
      [onSuccess, 'ON_SUCCESS'],
    ] as const) {
      await db.dataSource.query('INSERT INTO task_dependencies (tenant_id, parent_task_id, child_task_id, `condition`, created_at) VALUES (?, ?, ?, ?, 0)', [TENANT, chain.id, child.id, condition]);
    }
    const given = await firedWithNoExecutor(chain, fired, 'SCHEDULE');
    expect(await tickAt(fired + DEADLINE + 1)).toBe(1);
    expect((await readRun(db.dataSource, given)).state).toBe('FAILED');
    const [child] = await runsOfTask(db.dataSource, onFailure.id);
    expect([child?.state, child?.cause, child?.parentRunId]).toEqual(['PENDING', 'DEPENDENCY', given]);
    expect(await runsOfTask(db.dataSource, onSuccess.id)).toEqual([]);
    const [{ next_fire_at: next }] = (await db.dataSource.query('SELECT next_fire_at FROM tasks WHERE id = ?', [chain.id])) as Array<{ next_fire_at: unknown }>;
    expect(Number(next)).toBe(fired + DEADLINE + 1 + 30_000);
  });
});
