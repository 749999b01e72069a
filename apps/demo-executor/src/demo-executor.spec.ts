import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness } from '../../../test/protocol/executor-harness';
import { buildDemoHandlers, DEMO_HANDLER_NAMES, demoExecutorOptionsFromEnv } from './index';

describe('demo executor configuration', () => {
  const env = { BATON_TENANT: 'acme', BATON_EXECUTOR_SECRET: 's', BATON_ENGINE_URLS: 'http://e1:1, http://e2:2' };

  it('is the SDK\'s executorOptionsFromEnv with the app defaulting to demo and the demo handlers', () => {
    const o = demoExecutorOptionsFromEnv(env);
    expect(o).toMatchObject({ tenantId: 'acme', secret: 's', engineUrls: ['http://e1:1', 'http://e2:2'], app: 'demo', host: '127.0.0.1', port: 0 });
    expect(o.handlers.map((h) => h.name)).toEqual([...DEMO_HANDLER_NAMES]);
    const o2 = demoExecutorOptionsFromEnv({ ...env, BATON_EXECUTOR_APP: 'billing', BATON_EXECUTOR_PORT: '8123', BATON_EXECUTOR_CONCURRENCY: '16' });
    expect(o2).toMatchObject({ app: 'billing', port: 8123, concurrency: 16 });
  });

  it('names what is missing or wrong', () => {
    expect(() => demoExecutorOptionsFromEnv({ ...env, BATON_EXECUTOR_SECRET: '' })).toThrow('BATON_EXECUTOR_SECRET is required');
    expect(() => demoExecutorOptionsFromEnv({ ...env, BATON_EXECUTOR_PORT: 'eighty' })).toThrow('BATON_EXECUTOR_PORT="eighty": must be an integer ≥ 0 and ≤ 65535');
  });
});

describe('demo handlers (in process, on the SDK)', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(() => harness.cleanup());
  afterAll(() => engine.close());

  it('run as documented and are recorded when a record file is given', async () => {
    const dir = harness.tempDir();
    const recordFile = join(dir, 'record.jsonl');
    const executor = await harness.start(engine, { handlers: buildDemoHandlers({ recordFile }), progressIntervalMs: 10 });
    const reqs = {
      noop: engine.request({ handler: 'noop' }),
      sleep: engine.request({ handler: 'sleep', params: { ms: 50 } }),
      fail: engine.request({ handler: 'fail-n-times', params: { failures: 2 }, attempt: 2 }),
      long: engine.request({ handler: 'long-running', params: { ms: 100 } }),
      burn: engine.request({ handler: 'cpu-burn', params: { ms: 50 } }),
      record: engine.request({ handler: 'record' }),
    };
    for (const r of Object.values(reqs)) expect((await engine.dispatch(executor.url, r)).status).toBe(202);
    const result = async (r: { runId: number; attempt: number }) => (await engine.finalCallback(r.runId, r.attempt)).body;
    expect(await result(reqs.noop)).toMatchObject({ outcome: 'SUCCEEDED', result: { ok: true } });
    expect(await result(reqs.sleep)).toMatchObject({ outcome: 'SUCCEEDED', result: { sleptMs: 50 } });
    expect(await result(reqs.fail)).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/attempt 2 \(fails 2 time/) });
    const long = await result(reqs.long);
    expect(long).toMatchObject({ outcome: 'SUCCEEDED', progress: 100 });
    // Its ten lines: some went live with interim callbacks (it runs past a progress period), the rest with the final one; each once.
    const longLines = engine.callbacks.filter((c) => c.status === 200 && c.body.runId === reqs.long.runId).flatMap((c) => c.body.logs ?? []);
    expect(longLines.map((l) => l.message)).toEqual(Array.from({ length: 10 }, (_, i) => `step ${i + 1}/10 done`));
    expect(long.logs?.length ?? 0).toBeLessThan(10);
    const burn = await result(reqs.burn);
    expect(burn.outcome).toBe('SUCCEEDED');
    expect((burn.result as { burnedMs: number }).burnedMs).toBeGreaterThanOrEqual(50);
    expect(await result(reqs.record)).toMatchObject({ outcome: 'SUCCEEDED', result: { recorded: true } });
    const lines = readFileSync(recordFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.pid === process.pid && typeof l.at === 'number')).toBe(true);
    expect(lines.find((l) => l.runId === reqs.fail.runId)).toMatchObject({ attempt: 2, handler: 'fail-n-times' });
  });

  it('does not record without a record file', async () => {
    const dir = harness.tempDir();
    const executor = await harness.start(engine, { handlers: buildDemoHandlers() }, dir);
    const r = engine.request({ handler: 'record' });
    await engine.dispatch(executor.url, r);
    await engine.finalCallback(r.runId);
    expect(existsSync(join(dir, 'record.jsonl'))).toBe(false);
  });
});
