import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness, gate } from '../../../test/protocol/executor-harness';
import { defineHandler, type ExecutorEvents } from './index';
import { FakeClock } from './testing';

describe('executor runtime: graceful shutdown', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(async () => {
    await harness.cleanup();
    await engine.up();
  });
  afterAll(() => engine.close());

  const sleep = defineHandler<{ ms: number }>('sleep', async (ctx) => {
    await ctx.sleep(ctx.params.ms);
    return ctx.params.ms;
  });

  it('stops taking work (503), lets running runs finish, drops queued ones as ABORTED, announces draining, then closes', async () => {
    const release = gate();
    const held = defineHandler('held', () => release.wait.then(() => 'released'));
    const executor = await harness.start(engine, { handlers: [sleep, held], concurrency: 1, shutdownGraceMs: 3000 });
    const running = engine.request({ handler: 'held' });
    const queued = engine.request({ handler: 'sleep', params: { ms: 10 } });
    await engine.dispatch(executor.url, running);
    await engine.dispatch(executor.url, queued);
    await engine.waitFor(() => executor.runtime.stats().running === 1);
    const stopping = executor.stop();
    await engine.waitFor(() => executor.runtime.stats().phase === 'draining');
    const refused = await engine.dispatch(executor.url, engine.request({ handler: 'sleep', params: { ms: 1 } }));
    expect(refused).toMatchObject({ status: 503, body: { accepted: false, reason: 'SHUTTING_DOWN' } });
    // A repeat of an accepted dispatch is still answered 202 (it is known), not 503.
    expect((await engine.dispatch(executor.url, running)).status).toBe(202);
    // Abort and status still work while draining.
    expect((await engine.status(executor.url, running.runId)).status).toBe(200);
    release.open();
    await stopping;
    expect(engine.finalsFor(running.runId)).toEqual([expect.objectContaining({ outcome: 'SUCCEEDED', result: 'released' })]);
    expect(engine.finalsFor(queued.runId)).toEqual([expect.objectContaining({ outcome: 'ABORTED', abortReason: 'SHUTDOWN' })]);
    expect(engine.finalsFor(queued.runId)[0].startedAt).toBeUndefined();
    const mine = engine.heartbeats.filter((h) => h.body.url === executor.url);
    expect(mine.some((h) => h.body.draining === true)).toBe(true);
    expect(mine.at(-1)!.body).toMatchObject({ draining: true, inFlight: 0 });
    await expect(fetch(`${executor.url}/baton/health`)).rejects.toThrow(); // closed
    // Heartbeats stopped: the loop is off with no timer left to send another.
    expect(executor.runtime['heartbeat']).toMatchObject({ running: false, timer: null });
  });

  it('keeps a run sent ahead whose instant comes within the grace (it starts then and finishes); one due after the grace ends ABORTED', async () => {
    const clock = new FakeClock();
    const quick = defineHandler('quick', () => 'ok');
    const executor = await harness.start(engine, { handlers: [quick], shutdownGraceMs: 1_000, clock });
    const soon = engine.request({ handler: 'quick', startInMs: 300 });
    const late = engine.request({ handler: 'quick', startInMs: 5_000 });
    const sentAt = clock.now();
    await engine.dispatch(executor.url, soon);
    await engine.dispatch(executor.url, late);
    const stopping = executor.stop();
    await engine.waitFor(() => executor.runtime.stats().phase === 'draining');
    await engine.finalCallback(late.runId);
    expect(engine.finalsFor(late.runId)).toEqual([expect.objectContaining({ outcome: 'ABORTED', abortReason: 'SHUTDOWN' })]);
    expect([engine.finalsFor(soon.runId), executor.runtime.stats().queued]).toEqual([[], 1]); // kept, waiting for its instant
    await clock.advance(300);
    await stopping;
    expect(engine.finalsFor(soon.runId)).toEqual([expect.objectContaining({ outcome: 'SUCCEEDED', result: 'ok', startedAt: sentAt + 300 })]);
  });

  it('aborts runs still going when the grace expires (ctx.signal), reporting ABORTED/SHUTDOWN', async () => {
    const executor = await harness.start(engine, { handlers: [sleep], shutdownGraceMs: 100 });
    const req = engine.request({ handler: 'sleep', params: { ms: 30_000 } });
    await engine.dispatch(executor.url, req);
    await engine.waitFor(() => executor.runtime.stats().running === 1);
    await executor.stop(); // not after the run's 30 s: it is aborted at the grace's end
    expect(engine.finalsFor(req.runId)).toEqual([expect.objectContaining({ outcome: 'ABORTED', abortReason: 'SHUTDOWN', error: expect.stringMatching(/shutting down/) })]);
  });

  it('gives pending callbacks shutdownFlushMs, then leaves them in the spool', async () => {
    const executor = await harness.start(engine, { handlers: [sleep], shutdownFlushMs: 150 });
    const stopped: Array<ExecutorEvents['stopped']> = [];
    executor.events.on('stopped', (e) => stopped.push(e));
    await engine.down();
    const req = engine.request({ handler: 'sleep', params: { ms: 1 } });
    await engine.dispatch(executor.url, req);
    await engine.waitFor(() => executor.runtime.stats().pendingCallbacks === 1);
    const started = Date.now();
    await executor.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140); // it waited the flush time before leaving it
    expect(stopped).toEqual([{ undelivered: 1 }]);
  });

  it('flushes a callback that was failing as soon as the engine answers during shutdown', async () => {
    // An engine of its own: the refusal set up below is this run's callback's, whatever the file's
    // earlier executors still send (it waited 60 s for it twice in full parallel runs, on the shared one).
    const own = await FakeEngine.start();
    try {
      const executor = await harness.start(own, { handlers: [sleep], shutdownFlushMs: 3000, callbackRetry: { baseMs: 5000, maxMs: 5000 } });
      own.failCallbacks(1);
      const req = own.request({ handler: 'sleep', params: { ms: 1 } });
      const retries: Array<ExecutorEvents['callbackRetry']> = [];
      executor.events.on('callbackRetry', (e) => retries.push(e));
      expect((await own.dispatch(executor.url, req)).status).toBe(202);
      // The executor has the refusal and sleeps in backoff (the engine's record of the request comes before that).
      await own.waitFor(() => retries.some((e) => e.runId === req.runId), 'the refused callback retried');
      // Wakes the sleeping retry: waiting out its 5 s backoff would outlast the 3 s flush and leave it in the spool.
      await executor.stop();
      expect(own.finalsFor(req.runId)).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
