import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { createExecutorServer, defineHandler, NonRetryableError, type ExecutorServer } from '@baton/executor-sdk';
import { MAX_START_IN_MS, PATHS } from '@baton/protocol';
import { alarms, claimedRunOf, eventually, runInState, seedRun, seedTask, seedTenant, signedPost, startDispatchSide, SECRET, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';
import { DueQueue } from './due-queue';

/**
 * The dispatch side against the real executor SDK (not a fake): heartbeat registration,
 * signed dispatch, the SDK's signed callbacks (log tail, progress, business alarm), failure,
 * and the SDK aborting at the run's deadline.
 */
describe.each(TEST_DATABASES)('dispatch side with the executor SDK on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let executor: ExecutorServer;
  const starts = new Map<number, number>();
  const accepts = new Map<number, number>();

  beforeAll(async () => {
    // Runs may go as far ahead as the protocol lets them: a test can then cancel one long before its instant.
    engine = await startDispatchSide(db.dataSource, { sendAheadMs: MAX_START_IN_MS });
    await seedTenant(db.dataSource);
    executor = createExecutorServer({
      tenantId: TENANT,
      secret: SECRET,
      app: 'billing',
      engineUrls: [engine.url],
      spoolFile: false,
      heartbeatIntervalMs: 500,
      logger: false,
      handlers: [
        defineHandler<{ amount: number }>('charge', async (ctx) => {
          ctx.log.info(`charging ${ctx.params.amount}`);
          ctx.alarm('INFO', 'charged');
          return { charged: ctx.params.amount };
        }),
        defineHandler('boom', async () => {
          throw new Error('card declined');
        }),
        defineHandler('no-customer', async () => {
          throw new NonRetryableError('no customer 7');
        }),
        defineHandler('slow', async (ctx) => {
          await ctx.sleep(60_000);
        }),
        defineHandler('stamp', (ctx) => {
          starts.set(ctx.runId, Date.now());
          return null;
        }),
      ],
    });
    executor.runtime.events.on('accepted', ({ runId }) => accepts.set(runId, Date.now()));
    await executor.start();
  });
  afterAll(async () => {
    await executor?.stop();
    await engine?.close();
  });

  async function registered(): Promise<void> {
    await eventually(async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 1, 'executor registration');
    await engine.refreshRegistry();
  }

  it('runs a handler end to end: SUCCEEDED with result, log lines and the business alarm', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'charge', handler: 'charge' });
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId)]);
    const run = await runInState(db.dataSource, runId, 'SUCCEEDED');
    expect(run.result).toEqual({ charged: 5 });
    expect(run.startedAt).not.toBeNull();
    const logs = (await db.dataSource.query('SELECT message FROM run_logs WHERE run_id = ?', [runId])) as Array<{ message: string }>;
    expect(logs.map((l) => l.message)).toContain('charging 5');
    expect((await alarms(db.dataSource, 'BUSINESS')).map((a) => a.message)).toContain('charged');
  });

  it('a handler that throws ends FAILED with its error', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'boom', handler: 'boom' });
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId)]);
    const run = await runInState(db.dataSource, runId, 'FAILED');
    expect(run.error).toMatch(/card declined/);
  });

  it('retry.maxAttempts 3: a NonRetryableError ends FAILED after 1 attempt; a plain Error is retried', async () => {
    await registered();
    const final = await seedTask(db.dataSource, { name: 'no-customer', handler: 'no-customer', retryMaxAttempts: 3 });
    const finalRun = await seedRun(db.dataSource, final);
    const plain = await seedTask(db.dataSource, { name: 'boom-3', handler: 'boom', retryMaxAttempts: 3 });
    const plainRun = await seedRun(db.dataSource, plain);
    engine.get(DueQueue).accept([claimedRunOf(final, finalRun), claimedRunOf(plain, plainRun)]);
    const failed = await runInState(db.dataSource, finalRun, 'FAILED');
    expect(failed).toMatchObject({ attempt: 1, error: expect.stringMatching(/^NonRetryableError: no customer 7/) });
    expect(await runInState(db.dataSource, plainRun, 'RETRY_WAIT')).toMatchObject({ attempt: 2, error: expect.stringMatching(/card declined/) });
  });

  it('sends a run due later ahead of its instant: accepted before it, started at it on the executor, its timeline and timeout from there', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'stamp', handler: 'stamp', timeoutMs: 5_000 });
    const t = Date.now() + 1_500;
    const runId = await seedRun(db.dataSource, task, { scheduledAt: t });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: t, dueAt: t })]);
    const accepted = await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(accepts.get(runId)!).toBeLessThan(t);
    expect(starts.has(runId)).toBe(false);
    expect(accepted).toMatchObject({ dispatchedAt: t, acceptedAt: t, deadlineAt: t + 5_000 });
    expect(await engine.metrics.registry.getSingleMetricAsString('baton_engine_runs_sent_ahead_total')).toMatch(/ [1-9]\d*$/m);
    const done = await runInState(db.dataSource, runId, 'SUCCEEDED');
    expect(starts.get(runId)!).toBeGreaterThanOrEqual(t); // how close to t is bench/'s to measure
    expect(done.startedAt!).toBeGreaterThanOrEqual(t);
  });

  it('a run sent ahead and cancelled before its instant is aborted at its executor on the console\'s notice: it never starts', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'stamp-cancelled', handler: 'stamp' });
    const t = Date.now() + MAX_START_IN_MS - 5_000; // far enough for the dispatch, the cancel and the abort on any machine
    const runId = await seedRun(db.dataSource, task, { scheduledAt: t });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { scheduledAt: t, dueAt: t })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    await db.dataSource.query("UPDATE runs SET state = 'CANCELLED', finished_at = ? WHERE id = ?", [Date.now(), runId]); // as the console's cancel does
    const aborted = new Promise<string>((resolve) => executor.runtime.events.on('finished', (e) => e.runId === runId && resolve(e.outcome)));
    expect((await signedPost(engine.url, PATHS.cancelled, { runIds: [runId] })).status).toBe(204);
    expect(await aborted).toBe('ABORTED');
    expect(Date.now()).toBeLessThan(t);
    // Dropped from the executor's queue: nothing there waits for an instant any more, so it never starts.
    expect(executor.runtime.stats().queued).toBe(0);
    expect(starts.has(runId)).toBe(false);
    expect((await runInState(db.dataSource, runId, 'CANCELLED')).startedAt).toBeNull();
    const refused = await signedPost(engine.url, PATHS.cancelled, { runIds: [] });
    expect(refused).toMatchObject({ status: 400, body: { errors: [{ field: 'runIds' }] } });
  });

  it('a handler still running at its deadline is aborted by the SDK: TIMED_OUT', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'slow', handler: 'slow', timeoutMs: 800 });
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId)]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const run = await runInState(db.dataSource, runId, 'TIMED_OUT');
    expect(run.error).toMatch(/DEADLINE|TIMEOUT/);
  });
});
