import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { createExecutorServer, defineHandler, type ExecutorServer } from '@baton/executor-sdk';
import { claimedRunOf, eventually, readRun, seedRun, seedTask, seedTenant, startDispatchSide, SECRET, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';
import { DueQueue } from './due-queue';

/**
 * Issue 11 item 1: an executor on the SDK's small defaults took a burst as a storm of 429s — each
 * a failed dispatch and a RETRY_WAIT write, retried after a back-off. With credits the engine
 * sends no more than the executor says it can take, and the rest wait in the engine.
 */
describe.each(TEST_DATABASES)('credit-based flow control with the executor SDK on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let executor: ExecutorServer;
  let running = 0;
  let mostAtOnce = 0;

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
      concurrency: 2,
      queueLimit: 3,
      handlers: [
        defineHandler('work', async (ctx) => {
          mostAtOnce = Math.max(mostAtOnce, ++running);
          await ctx.sleep(15);
          running--;
        }),
      ],
    });
    await executor.start();
    await eventually(async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 1, 'executor registration');
    await engine.refreshRegistry();
  });
  afterAll(async () => {
    await executor?.stop();
    await engine?.close();
  });

  it('a burst of 60 runs on an executor with room for 5 (2 workers, queue 3): every run ends, in order of arrival, with no retry', async () => {
    engine.metrics.dispatchFailures.reset();
    const task = await seedTask(db.dataSource, { name: 'work', handler: 'work' });
    const due = Date.now();
    const ids: number[] = [];
    for (let i = 0; i < 60; i++) ids.push(await seedRun(db.dataSource, task, { scheduledAt: due, fireKey: `m:burst-${kind}-${i}` }));
    engine.get(DueQueue).accept(ids.map((id) => claimedRunOf(task, id, { scheduledAt: due, dueAt: due })));
    await eventually(async () => (await Promise.all(ids.map((id) => readRun(db.dataSource, id)))).every((r) => r.state === 'SUCCEEDED'), 'every run SUCCEEDED');
    const runs = await Promise.all(ids.map((id) => readRun(db.dataSource, id)));
    expect(runs.map((r) => r.attempt)).toEqual(ids.map(() => 1)); // none went through RETRY_WAIT
    expect(mostAtOnce).toBeLessThanOrEqual(2);
    const failures = (await engine.metrics.dispatchFailures.get()).values;
    const busy = failures.filter((v) => v.labels.reason === 'BUSY').reduce((a, v) => a + v.value, 0);
    // Without credits: dozens of 429s. With them only a probe can meet a full executor, and the
    // probes back off while it stays full.
    expect(busy).toBeLessThanOrEqual(3);
  });
});
