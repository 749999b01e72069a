import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { createExecutorServer, defineHandler, NonRetryableError, type ExecutorServer } from '@baton/executor-sdk';
import { alarms, claimedRunOf, eventually, runInState, seedRun, seedTask, seedTenant, startDispatchSide, SECRET, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';
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

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
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
      ],
    });
    await executor.start();
  });
  afterAll(async () => {
    await executor?.stop();
    await engine?.close();
  });

  async function registered(): Promise<void> {
    await eventually(async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 1, 5_000, 'executor registration');
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

  it('a handler still running at its deadline is aborted by the SDK: TIMED_OUT', async () => {
    await registered();
    const task = await seedTask(db.dataSource, { name: 'slow', handler: 'slow', timeoutMs: 800 });
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId)]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const run = await runInState(db.dataSource, runId, 'TIMED_OUT', 10_000);
    expect(run.error).toMatch(/DEADLINE|TIMEOUT/);
  });
});
