import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, releaseRuns } from '@baton/persistence';
import { PATHS } from '@baton/protocol';
import { OffsetClock, READING_ROUNDING_MS, systemClock, type Clock } from '@baton/domain';
import { ClockWatch, MAX_CLOCK_UNCERTAINTY_MS } from '../common/clock-watch';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import type { ClaimedRun } from '../common/claimed-run';
import { Alarms } from '../alarms/alarms';
import { alarms, claimedRunOf, FakeExecutor, GROUP, NODE_ID, runInState, seedExecutor, seedRun, seedTask, seedTenant, signedPost, startDispatchSide, TENANT, type DispatchSideApp, type ExecutorRequest } from '../testing/dispatch-side-kit';
import { RunClaims } from '../runs/run-claims';
import { DueQueue } from './due-queue';

/**
 * Issue 39: a run sent ahead of its instant and refused (its executor's queue places full), then
 * claimed again — by this engine or another after a give-back or a takeover — is sent with
 * `startInMs` counted to its instant, not to whenever its dispatch back-off ended. The executor
 * counts startInMs from the request's arrival, which is after the engine computed it: arrival +
 * startInMs ≥ the instant is the run starting at its instant or later.
 */
describe.each(TEST_DATABASES)('a run never starts before its instant on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let executor: FakeExecutor;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, { sendAheadMs: 20_000 });
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
    await seedExecutor(db.dataSource, { url: executor.url });
    // Protocol 2: it holds a run sent ahead until its instant.
    await db.dataSource.query('UPDATE executors SET protocol_version = 2');
    await engine.refreshRegistry();
  });

  /** The first dispatch of each run is refused as a full executor refuses it; later ones are taken. */
  /** Each run's first send refused: 503 (the executor shutting down: the run is deferred to the database), or 429 busy (kept in hand). */
  function refuseFirstSend(answer: 'SHUTTING_DOWN' | 'BUSY' = 'SHUTTING_DOWN'): void {
    const take = executor.behaviour;
    const seen = new Set<unknown>();
    executor.behaviour = (req) => {
      if (req.path !== '/baton/runs' || seen.has(req.body.runId)) return take(req);
      seen.add(req.body.runId);
      return answer === 'BUSY'
        ? { status: 429, body: { accepted: false, reason: 'BUSY', message: 'queue places full' } }
        : { status: 503, body: { accepted: false, reason: 'SHUTTING_DOWN', message: 'draining' } };
    };
  }

  /** The run claimed again as any engine of the group would, once its back-off is over. */
  async function claimAgain(runId: number, instant: number): Promise<ClaimedRun> {
    const claimed = await inTransaction(db.dataSource, (em) =>
      engine.get(RunClaims).claim(em, [{ tenantId: TENANT, engineGroup: GROUP, limit: 10 }], { dueBefore: instant, now: Date.now() }),
    );
    const run = claimed.find((r) => r.runId === runId);
    if (!run) throw new Error(`run ${runId} was not claimable again`);
    return run;
  }

  function sends(runId: number): ExecutorRequest[] {
    return executor.dispatches.filter((r) => r.body.runId === runId);
  }

  it('refused while sent ahead, deferred and sent again: its instant is kept, and its startInMs ends at it', async () => {
    refuseFirstSend();
    const task = await seedTask(db.dataSource, { name: 'daily-report' });
    const instant = Date.now() + 4_000;
    const runId = await seedRun(db.dataSource, task, { scheduledAt: instant });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: instant, dueAt: instant })]);
    const deferred = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(deferred.dueAt).toBeLessThan(instant); // the back-off ends long before the instant: it may be sent ahead again

    const again = await claimAgain(runId, instant);
    expect(again).toMatchObject({ instant, scheduledAt: instant });
    engine.get(DueQueue).accept([again]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const [refused, taken] = sends(runId);
    expect(refused.at + Number(refused.body.startInMs)).toBeGreaterThanOrEqual(instant);
    expect(taken.at + Number(taken.body.startInMs)).toBeGreaterThanOrEqual(instant);
  });

  it('refused busy while sent ahead, kept in hand and sent again: its startInMs still ends at its instant', async () => {
    refuseFirstSend('BUSY');
    const task = await seedTask(db.dataSource, { name: 'hourly-report' });
    const instant = Date.now() + 4_000;
    const runId = await seedRun(db.dataSource, task, { scheduledAt: instant });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: instant, dueAt: instant })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const [refused, taken] = sends(runId);
    expect(refused.at + Number(refused.body.startInMs)).toBeGreaterThanOrEqual(instant);
    expect(taken.at + Number(taken.body.startInMs)).toBeGreaterThanOrEqual(instant);
  });

  it('deferred, then given back and taken over by another engine: sent with its instant still', async () => {
    refuseFirstSend();
    const task = await seedTask(db.dataSource, { name: 'nightly' });
    const instant = Date.now() + 4_000;
    const runId = await seedRun(db.dataSource, task, { scheduledAt: instant });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: instant, dueAt: instant })]);
    await runInState(db.dataSource, runId, 'RETRY_WAIT');

    // Claimed by a node that died holding it DISPATCHED; the survivors' takeover hands it back.
    await claimAgain(runId, instant);
    await db.dataSource.query("UPDATE runs SET state = 'DISPATCHED', claimed_by = 'node-dead' WHERE id = ?", [runId]);
    await inTransaction(db.dataSource, (em) => releaseRuns(em, { ids: [runId], from: 'DISPATCHED', owner: 'node-dead', now: Date.now() }));

    const taken = await claimAgain(runId, instant);
    expect(taken).toMatchObject({ instant, leaseUntil: expect.any(Number) });
    engine.get(DueQueue).accept([taken]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const last = sends(runId).at(-1)!;
    expect(last.at + Number(last.body.startInMs)).toBeGreaterThanOrEqual(instant);
    expect(await db.dataSource.query('SELECT claimed_by FROM runs WHERE id = ?', [runId])).toEqual([{ claimed_by: NODE_ID }]);
  });

  it('sent ahead and rejected by every executor (404), retried: the retry is due at its instant, not at the end of its backoff', async () => {
    const take = executor.behaviour;
    let first = true;
    executor.behaviour = (req) => {
      if (req.path !== '/baton/runs' || !first) return take(req);
      first = false;
      return { status: 404, body: { accepted: false, reason: 'UNKNOWN_HANDLER', message: 'no handler "charge" here' } };
    };
    const task = await seedTask(db.dataSource, { name: 'daily-report', retryMaxAttempts: 2, retryBackoffBaseMs: 500 });
    const instant = Date.now() + 5_000;
    const runId = await seedRun(db.dataSource, task, { scheduledAt: instant });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: instant, dueAt: instant })]);
    const retried = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(retried).toMatchObject({ attempt: 2, dueAt: instant });

    const again = await claimAgain(runId, instant);
    expect(again.instant).toBe(instant);
    engine.get(DueQueue).accept([again]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const second = sends(runId).find((r) => r.body.attempt === 2)!;
    expect(second.at + Number(second.body.startInMs ?? 0)).toBeGreaterThanOrEqual(instant);
  });

  it('accepted ahead, then dropped by its executor before its instant (ABORTED, SHUTDOWN): the retry is due at the instant', async () => {
    const task = await seedTask(db.dataSource, { name: 'nightly', retryMaxAttempts: 2, retryBackoffBaseMs: 500 });
    const instant = Date.now() + 10_000;
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: instant, dispatchedAt: instant, acceptedAt: instant, deadlineAt: instant + 60_000 });
    const reply = await signedPost(engine.url, PATHS.callback, {
      runId,
      attempt: 1,
      tenantId: TENANT,
      outcome: 'ABORTED',
      abortReason: 'SHUTDOWN',
      error: 'aborted: the executor shut down before the run started',
      finishedAt: Date.now(),
    });
    expect(reply.status).toBe(200);
    expect(await runInState(db.dataSource, runId, 'RETRY_WAIT')).toMatchObject({ attempt: 2, dueAt: instant });
  });

  it("an outcome callback whose start is more than 20 ms before the instant is an early start: counted, and a RUN_STARTED_EARLY alarm naming its executor and its clock; 20 ms is not", async () => {
    const task = await seedTask(db.dataSource, { name: 'report' });
    // Given its alarm types without the new one: a defect is raised whatever the task chose.
    await db.dataSource.query("UPDATE tasks SET alarm_types = '[\"FAILED\"]' WHERE id = ?", [task.id]);
    const instant = Date.now() + 60_000;
    const executorId = await seedExecutor(db.dataSource, { url: 'http://10.0.0.7:8090' });
    const [early, onTime] = [await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: instant, executorId }), await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: instant, executorId })];
    const before = (await engine.metrics.runsStartedEarly.get()).values[0]?.value ?? 0;
    const end = (runId: number, startedAt: number) =>
      signedPost(engine.url, PATHS.callback, { runId, attempt: 1, tenantId: TENANT, outcome: 'SUCCEEDED', startedAt, finishedAt: startedAt + 5, result: null });
    expect((await end(early, instant - 9_100)).status).toBe(200);
    expect((await end(onTime, instant - 20)).status).toBe(200);
    expect(await alarms(db.dataSource, 'RUN_STARTED_EARLY')).toEqual([
      expect.objectContaining({ severity: 'WARNING', taskId: task.id, runId: early, message: expect.stringMatching(/started 9100 ms before its instant .* on executor http:\/\/10\.0\.0\.7:8090: check that executor's clock \(NTP\)$/) }),
    ]);
    expect((await engine.metrics.runsStartedEarly.get()).values[0].value - before).toBe(1);
  });

  it("repeated early starts of a task within its silence window count into one open RUN_STARTED_EARLY alarm (the first run's), each still counted in the metric", async () => {
    const task = await seedTask(db.dataSource, { name: 'report', alarmSilenceMs: 60_000 });
    const instant = Date.now() + 60_000;
    const runs = [await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: instant }), await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: instant })];
    const before = (await engine.metrics.runsStartedEarly.get()).values[0]?.value ?? 0;
    for (const runId of runs) {
      const reply = await signedPost(engine.url, PATHS.callback, { runId, attempt: 1, tenantId: TENANT, outcome: 'SUCCEEDED', startedAt: instant - 5_000, finishedAt: instant - 4_000, result: null });
      expect(reply.status).toBe(200);
    }
    await engine.get(Alarms).countsWritten();
    expect(await alarms(db.dataSource, 'RUN_STARTED_EARLY')).toEqual([expect.objectContaining({ runId: runs[0], count: 2 })]);
    expect((await engine.metrics.runsStartedEarly.get()).values[0].value - before).toBe(2);
  });

  it.each([
    ['5 s ahead', 5_000],
    ['5 s behind', -5_000],
  ])('an engine whose machine clock is %s sends on the database\'s time: its runs start at their instant, neither early nor late by the skew', async (_, skewMs) => {
    const machine: Clock = { now: () => systemClock.now() + skewMs, after: (ms, fn) => systemClock.after(ms, fn) };
    const skewed = await startDispatchSide(db.dataSource, { sendAheadMs: 20_000 }, { clock: new OffsetClock(machine) });
    try {
      await skewed.refreshRegistry();
      expect(await skewed.get(ClockWatch).check()).toBe('STOPPED'); // beyond the default stop bound: it would claim nothing, but what it holds it sends right
      const task = await seedTask(db.dataSource, { name: `skewed-${skewMs}` });
      const instant = Date.now() + 3_000; // the database's clock: MariaDB and SQLite run on this machine
      const runId = await seedRun(db.dataSource, task, { scheduledAt: instant });
      const before = Date.now();
      skewed.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: instant, dueAt: instant })]);
      await runInState(db.dataSource, runId, 'ACCEPTED');
      const [sent] = sends(runId);
      // Never early: it arrived after it left, so arrival + startInMs is at or after the instant…
      expect(sent.at + Number(sent.body.startInMs)).toBeGreaterThanOrEqual(instant);
      // …and not late by the skew: it left after `before`, so its wait is at most instant − before, and the
      // engine's clock, never ahead of the database's, behind it by at most the measure's round trip and rounding.
      expect(Number(sent.body.startInMs)).toBeLessThanOrEqual(instant - before + 2 * MAX_CLOCK_UNCERTAINTY_MS + READING_ROUNDING_MS);
    } finally {
      await skewed.close();
    }
  });
});
