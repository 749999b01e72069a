import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness } from '../../../test/protocol/executor-harness';
import { defineHandler, type ExecutorEvents } from './index';

/** A port nothing listens on (connections are refused). */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

const spoolLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

describe('executor runtime: callback delivery and the spool', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  const noop = defineHandler('noop', () => ({ ok: true }));
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(async () => {
    await harness.cleanup();
    engine.failCallbacks(0);
    await engine.up();
  });
  afterAll(() => engine.close());

  it('spools a callback before its first send, retries it on 503 until it is taken', async () => {
    const dir = harness.tempDir();
    const executor = await harness.start(engine, { handlers: [noop] }, dir);
    const spooledAtFirstSend: boolean[] = [];
    engine.onCallback = (cb) => spooledAtFirstSend.push(spoolLines(join(dir, 'spool.jsonl')).some((l) => l.op === 'add' && l.id === `${cb.runId}:${cb.attempt}`));
    const retries: Array<ExecutorEvents['callbackRetry']> = [];
    executor.events.on('callbackRetry', (e) => retries.push(e));
    engine.failCallbacks(3, 503);
    const req = engine.request();
    await engine.dispatch(executor.url, req);
    const cb = await engine.finalCallback(req.runId);
    expect(cb.signature).toEqual({ ok: true });
    const tries = engine.callbacks.filter((c) => c.body.runId === req.runId);
    expect(tries.map((c) => c.status)).toEqual([503, 503, 503, 200]);
    expect(retries.map((r) => r.tries)).toEqual([1, 2, 3]);
    expect(retries[0].error).toMatch(/HTTP 503/);
    // The engine is tried again with a fresh signature each time (new timestamp).
    expect(new Set(tries.map((c) => c.headers['x-baton-signature'])).size).toBe(4);
    expect(spooledAtFirstSend[0]).toBe(true);
    engine.onCallback = undefined;
  });

  it('writes the callback to the spool before sending it, keeps retrying while the engine is down, delivers when it is back', async () => {
    const dir = harness.tempDir();
    const executor = await harness.start(engine, { handlers: [noop], callbackRetry: { baseMs: 20, maxMs: 100 } }, dir);
    const spool = join(dir, 'spool.jsonl');
    const retries: number[] = [];
    executor.events.on('callbackRetry', (e) => retries.push(e.runId));
    await engine.down();
    try {
      const req = engine.request();
      // The engine is down, so dispatch by hand with the engine's client side still working.
      const { status } = await engine.dispatch(executor.url, req);
      expect(status).toBe(202);
      const line = await engine.waitFor(() => spoolLines(spool).find((l) => l.op === 'add' && l.id === `${req.runId}:1`), 'the spooled callback');
      expect(line.callback).toMatchObject({ runId: req.runId, attempt: 1, outcome: 'SUCCEEDED', result: { ok: true } });
      expect(line.urls).toEqual([engine.url]);
      await engine.waitFor(() => retries.filter((id) => id === req.runId).length >= 3, 'several failed rounds');
      expect(executor.runtime.stats().pendingCallbacks).toBe(1);
      await engine.up();
      const cb = await engine.finalCallback(req.runId, 1);
      expect(cb.body.outcome).toBe('SUCCEEDED');
      await engine.waitFor(() => spoolLines(spool).some((l) => l.op === 'done' && l.id === `${req.runId}:1`), 'the done line');
      expect(executor.runtime.stats().pendingCallbacks).toBe(0);
    } finally {
      await engine.up();
    }
  });

  it('tries the next engine URL when one is down, and prefers the one that answered', async () => {
    const dead = await deadUrl();
    const executor = await harness.start(engine, { handlers: [noop], engineUrls: [dead, engine.url] });
    // The executor's event, not the engine's record: the engine records a callback before the executor has its answer.
    const delivered = new Promise<ExecutorEvents['callbackDelivered']>((resolve) => executor.events.on('callbackDelivered', resolve));
    const r1 = engine.request({ callbackUrls: [dead] });
    await engine.dispatch(executor.url, r1);
    expect(await delivered).toMatchObject({ runId: r1.runId, engineUrl: engine.url, tries: 1 });
    const heartbeatsOk = engine.heartbeats.filter((h) => h.body.url === executor.url && h.status === 200);
    expect(heartbeatsOk.length).toBeGreaterThanOrEqual(1);
  });

  it("keeps a callback refused with 429 and sends it again after the engine's Retry-After, even when another callback's success wakes the others", async () => {
    const executor = await harness.start(engine, { handlers: [noop], callbackRetry: { baseMs: 20, maxMs: 100 } });
    const retries: Array<ExecutorEvents['callbackRetry']> = [];
    executor.events.on('callbackRetry', (e) => retries.push(e));
    engine.failCallbacks(1, 429, 1);
    const first = engine.request();
    await engine.dispatch(executor.url, first);
    await engine.waitFor(() => engine.callbacks.find((c) => c.body.runId === first.runId), 'the refused callback');
    // Another run's callback is taken at once: its success wakes the callbacks in backoff, but not one told to wait.
    const second = engine.request();
    await engine.dispatch(executor.url, second);
    await engine.finalCallback(second.runId);
    await engine.finalCallback(first.runId, 1);
    const tries = engine.callbacks.filter((c) => c.body.runId === first.runId);
    expect(tries.map((c) => c.status)).toEqual([429, 200]);
    expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(990);
    expect(retries.map((r) => [r.runId, r.delayMs >= 1000])).toEqual([[first.runId, true]]);
    expect(retries[0].error).toMatch(/HTTP 429/);
  });

  it('treats 409 (the engine already has it) as delivered, and drops a callback the engine calls malformed (400)', async () => {
    const dir = harness.tempDir();
    const executor = await harness.start(engine, { handlers: [noop] }, dir);
    const events: string[] = [];
    executor.events.on('callbackDelivered', (e) => events.push(`delivered ${e.status}`));
    executor.events.on('callbackDropped', (e) => events.push(`dropped ${e.status}`));
    engine.failCallbacks(1, 409);
    const r1 = engine.request();
    await engine.dispatch(executor.url, r1);
    await engine.waitFor(() => events.length === 1);
    engine.failCallbacks(1, 400);
    const r2 = engine.request();
    await engine.dispatch(executor.url, r2);
    await engine.waitFor(() => events.length === 2);
    expect(events).toEqual(['delivered 409', 'dropped 400']);
    // Settled, both: nothing is left pending that a retry could send again.
    expect(executor.runtime.stats().pendingCallbacks).toBe(0);
    expect(engine.callbacks.filter((c) => c.body.runId === r1.runId || c.body.runId === r2.runId)).toHaveLength(2);
  });

  it('replays spooled callbacks after a restart (a new runtime on the same spool file)', async () => {
    const dir = harness.tempDir();
    const first = await harness.start(engine, { handlers: [noop], shutdownFlushMs: 100 }, dir);
    await engine.down();
    const reqs = [engine.request(), engine.request()];
    try {
      for (const r of reqs) expect((await engine.dispatch(first.url, r)).status).toBe(202);
      await engine.waitFor(() => first.runtime.stats().pendingCallbacks === 2, 'two pending callbacks');
      const stopped = new Promise<ExecutorEvents['stopped']>((resolve) => first.events.once('stopped', resolve));
      await first.stop();
      expect(await stopped).toEqual({ undelivered: 2 });
    } finally {
      await engine.up();
    }
    const spool = join(dir, 'spool.jsonl');
    expect(spoolLines(spool).map((l) => l.id).sort()).toEqual(reqs.map((r) => `${r.runId}:1`).sort());
    expect(engine.finalsFor(reqs[0].runId)).toHaveLength(0);

    const second = harness.create(engine, { handlers: [noop] }, dir);
    const replayed: Array<ExecutorEvents['replayed']> = [];
    second.events.on('replayed', (e) => replayed.push(e));
    await second.start();
    expect(replayed).toEqual([{ count: 2, spoolFile: spool }]);
    for (const r of reqs) {
      const cb = await engine.finalCallback(r.runId);
      expect(cb.body).toMatchObject({ outcome: 'SUCCEEDED', result: { ok: true } });
      expect(cb.signature).toEqual({ ok: true });
    }
    await second.stop();
    expect(existsSync(spool)).toBe(false); // nothing pending: the file is removed on a clean stop
  });

  it('refuses to share an explicit spool file with another live runtime', async () => {
    const dir = harness.tempDir();
    await harness.start(engine, { handlers: [noop] }, dir);
    await expect(harness.start(engine, { handlers: [noop] }, dir)).rejects.toThrow(/spool .*spool\.jsonl is in use by process \d+/);
  });
});
