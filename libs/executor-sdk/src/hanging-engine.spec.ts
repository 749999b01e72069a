import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness } from '../../../test/protocol/executor-harness';
import { HangingEngine } from '../../../test/protocol/hanging-engine';
import { defineHandler } from './index';

describe('executor runtime: one hanging engine holds neither heartbeats nor callbacks', () => {
  let engine: FakeEngine;
  let hanging: HangingEngine;
  const harness = new ExecutorHarness();
  const noop = defineHandler('noop', () => ({ ok: true }));
  // Requests to the hanging engine run for a minute: whatever reaches the live engine meanwhile went around it.
  const options = () => ({ handlers: [noop], engineUrls: [hanging.url, engine.url], requestTimeoutMs: 60_000, rerouteAfterMs: 50 });
  beforeAll(async () => (engine = await FakeEngine.start({ intervalMs: 20 })));
  afterEach(async () => {
    await harness.cleanup();
    await hanging.close();
  });
  afterAll(() => engine.close());

  it('heartbeats reach the other engine while the first one hangs, and later ones do not wait on it', async () => {
    hanging = await HangingEngine.start();
    const executor = await harness.start(engine, options());
    const acked: string[] = [];
    executor.events.on('heartbeat', (e) => acked.push(e.engineUrl));
    await new Promise<void>((resolve) => executor.events.on('heartbeat', () => acked.length === 3 && resolve()));
    expect(acked).toEqual([engine.url, engine.url, engine.url]);
    // The hanging engine still holds the first heartbeat: it was set aside, not waited for.
    expect(hanging.holding).toBeGreaterThan(0);
    expect(hanging.requests).toBeLessThan(engine.heartbeats.length);
  });

  it("a run's final callback listed for the hanging engine first reaches another engine while that one still holds it", async () => {
    hanging = await HangingEngine.start();
    const executor = await harness.start(engine, options());
    // The hanging engine is tried first for this callback (set aside only once it has failed to answer).
    const req = engine.request({ callbackUrls: [hanging.url, engine.url] });
    await engine.dispatch(executor.url, req);
    const cb = await engine.finalCallback(req.runId, 1);
    expect(cb.body.outcome).toBe('SUCCEEDED');
    expect(hanging.holding).toBeGreaterThan(0);
  });

  it("with one callback request slot, the hanging engine's requests do not keep callbacks from the other engine", async () => {
    hanging = await HangingEngine.start();
    // Heartbeats go to the live engine alone: one that reached the hanging engine first would set it
    // aside, and the callbacks would never be sent to it (the case under test would not happen).
    const executor = await harness.start(engine, { ...options(), engineUrls: [engine.url], callbackConcurrency: 1 });
    const reqs = [1, 2, 3, 4].map(() => engine.request({ callbackUrls: [hanging.url, engine.url] }));
    for (const req of reqs) await engine.dispatch(executor.url, req);
    // A generous deadline, still far below the minute the hanging engine's requests wait.
    const finals = await Promise.all(reqs.map((req) => engine.finalCallback(req.runId, 1)));
    expect(finals.map((cb) => cb.body.outcome)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    expect(hanging.holdingCallbacks).toBeGreaterThan(0);
  });
});
