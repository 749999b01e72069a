import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeEngine } from './fake-engine';
import { demoExecutorCommand, startExecutorProcess, type ExecutorProcess } from './executor-process';

/** The demo executor as an OS process: crash recovery, invocation records, its handlers. */
describe('apps/demo-executor as a process', () => {
  let engine: FakeEngine;
  let dir: string;
  const procs: ExecutorProcess[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const p = await startExecutorProcess(
      demoExecutorCommand({
        BATON_TENANT: engine.tenantId,
        BATON_EXECUTOR_SECRET: engine.secret,
        BATON_ENGINE_URLS: engine.url,
        BATON_EXECUTOR_SPOOL: join(dir, 'spool.jsonl'),
        BATON_EXECUTOR_RETRY_BASE_MS: '20',
        BATON_EXECUTOR_RETRY_MAX_MS: '100',
        BATON_DEMO_RECORD_FILE: join(dir, 'record.jsonl'),
        ...extra,
      }),
    );
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    engine = await FakeEngine.start({ tenantId: 'demo-tenant', secret: 'demo-secret' });
    dir = mkdtempSync(join(tmpdir(), 'baton-demo-'));
  });
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop('SIGKILL')));
    await engine.up();
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const records = () =>
    existsSync(join(dir, 'record.jsonl'))
      ? readFileSync(join(dir, 'record.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { runId: number; attempt: number; pid: number; handler: string; at: number })
      : [];

  it('after kill -9 with the engine down, a restarted executor replays the spooled callback', async () => {
    const first = await start();
    await engine.down();
    const req = engine.request({ handler: 'noop' });
    // The engine's server side is down, but its client side still dispatches.
    expect((await engine.dispatch(first.url, req)).status).toBe(202);
    await engine.waitFor(() => existsSync(join(dir, 'spool.jsonl')) && readFileSync(join(dir, 'spool.jsonl'), 'utf8').includes(`"id":"${req.runId}:1"`), 'the spooled callback');
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');
    await engine.up();
    const second = await start();
    expect(second.pid).not.toBe(first.pid);
    const cb = await engine.finalCallback(req.runId, 1);
    expect(cb.body).toMatchObject({ outcome: 'SUCCEEDED', result: { ok: true } });
    expect(cb.signature).toEqual({ ok: true });
    // It ran once, in the first process.
    expect(records().filter((r) => r.runId === req.runId)).toEqual([expect.objectContaining({ attempt: 1, pid: first.pid, handler: 'noop' })]);
  });

  it('records every invocation (run, attempt, pid, time); fail-n-times fails then succeeds', async () => {
    const p = await start();
    const req = engine.request({ handler: 'fail-n-times', params: { failures: 1 } });
    await engine.dispatch(p.url, req);
    expect((await engine.finalCallback(req.runId, 1)).body).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/planned failure on attempt 1/) });
    await engine.dispatch(p.url, { ...req, attempt: 2 });
    expect((await engine.finalCallback(req.runId, 2)).body).toMatchObject({ outcome: 'SUCCEEDED', result: { succeededOnAttempt: 2 } });
    const mine = records().filter((r) => r.runId === req.runId);
    expect(mine.map((r) => [r.attempt, r.pid, r.handler])).toEqual([
      [1, p.pid, 'fail-n-times'],
      [2, p.pid, 'fail-n-times'],
    ]);
    expect(mine.every((r) => typeof r.at === 'number')).toBe(true);
  });

  it('acks at once while cpu-burn keeps the process busy, and cpu-burn / long-running honour an abort', async () => {
    const p = await start({ BATON_EXECUTOR_CONCURRENCY: '2' });
    const burn = engine.request({ handler: 'cpu-burn', params: { ms: 60_000 } });
    expect((await engine.dispatch(p.url, burn)).status).toBe(202);
    const burnState = async () => ((await engine.status(p.url, burn.runId)).body.attempts as Array<{ state: string }>)[0]?.state;
    await vi.waitFor(async () => expect(await burnState()).toBe('RUNNING'), { timeout: 10_000, interval: 20 });
    const quick = engine.request({ handler: 'noop' });
    const answer = await engine.dispatch(p.url, quick);
    expect(answer.status).toBe(202);
    await engine.finalCallback(quick.runId, 1);
    // Acked and run between two burn slices (10 ms each), not after the 60 s burn: it is still running.
    expect(await burnState()).toBe('RUNNING');
    await engine.abort(p.url, { runId: burn.runId, attempt: 1, reason: 'TIMEOUT' });
    const cb = (await engine.finalCallback(burn.runId, 1)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'TIMEOUT' });
    expect(cb.finishedAt! - cb.startedAt!).toBeLessThan(60_000); // stopped, not burnt to its end

    const long = engine.request({ handler: 'long-running', params: { ms: 600 } });
    await engine.dispatch(p.url, long);
    const done = (await engine.finalCallback(long.runId)).body;
    expect(done).toMatchObject({ outcome: 'SUCCEEDED', progress: 100 });
    expect(done.logs!.map((l) => l.message)).toContain('step 10/10 done');
    const interim = engine.callbacks.filter((c) => c.body.runId === long.runId && !c.body.outcome).map((c) => c.body.progress);
    expect(interim.length).toBeGreaterThanOrEqual(1); // throttled to one per second by default
    expect(interim[0]).toBe(10);
  });

  it('exits with a clear message when required configuration is missing', async () => {
    await expect(startExecutorProcess(demoExecutorCommand({ BATON_TENANT: '', BATON_EXECUTOR_SECRET: 's', BATON_ENGINE_URLS: engine.url }), 10_000)).rejects.toThrow(
      /exited \(2\) before READY[\s\S]*BATON_TENANT is required/,
    );
  });
});
