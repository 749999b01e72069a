import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness, gate } from '../../../test/protocol/executor-harness';
import { PATHS, sign } from '@baton/protocol';
import { defineHandler, RunAbortedError } from './index';
import { FakeClock } from './testing';

describe('executor runtime: abort, deadline, logs, progress, alarms', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(() => harness.cleanup());
  afterAll(() => engine.close());

  const sleeper = (seen: { started?: boolean; reason?: unknown } = {}) =>
    defineHandler<{ ms?: number }>('sleep', async (ctx) => {
      seen.started = true;
      try {
        await ctx.sleep(ctx.params?.ms ?? 30_000);
      } catch (err) {
        seen.reason = ctx.signal.reason;
        throw err;
      }
      return 'slept';
    });

  it('an abort request reaches ctx.signal; the callback says ABORTED with the reason', async () => {
    const seen: { started?: boolean; reason?: unknown } = {};
    const executor = await harness.start(engine, { handlers: [sleeper(seen)] });
    const req = engine.request({ handler: 'sleep' });
    await engine.dispatch(executor.url, req);
    await engine.waitFor(() => seen.started === true);
    const answer = await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' });
    expect(answer).toMatchObject({ status: 202, body: { aborted: true, runId: req.runId, attempt: 1, state: 'RUNNING' } });
    const cb = (await engine.finalCallback(req.runId)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'CANCELLED', error: expect.stringMatching(/cancelled/) }); // not its 30 s sleep's end
    expect(seen.reason).toBeInstanceOf(RunAbortedError);
    expect((seen.reason as RunAbortedError).reason).toBe('CANCELLED');
    // Finished / unknown / wrong attempt: 404 with what the executor knows.
    expect(await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'TIMEOUT' })).toMatchObject({ status: 404, body: { aborted: false, state: 'FINISHED' } });
    expect(await engine.abort(executor.url, { runId: 999_999, attempt: 1, reason: 'TIMEOUT' })).toMatchObject({ status: 404, body: { aborted: false, state: 'UNKNOWN' } });
    // The body must match the path.
    const mismatch = await engine.send(executor.url, 'POST', `/baton/runs/${req.runId}/abort`, { runId: req.runId + 1, attempt: 1, reason: 'TIMEOUT' });
    expect(mismatch).toMatchObject({ status: 400, body: { field: 'runId' } });
    const badReason = await engine.send(executor.url, 'POST', `/baton/runs/${req.runId}/abort`, { runId: req.runId, attempt: 1, reason: 'BORED' });
    expect(badReason).toMatchObject({ status: 400, body: { field: 'reason' } });
  });

  it('an abort of a queued run drops it without running the handler', async () => {
    const release = gate();
    let runs = 0;
    const wait = defineHandler('wait', async () => {
      runs++;
      await release.wait;
    });
    const executor = await harness.start(engine, { handlers: [wait], concurrency: 1 });
    const [a, b] = [engine.request({ handler: 'wait' }), engine.request({ handler: 'wait' })];
    await engine.dispatch(executor.url, a);
    await engine.dispatch(executor.url, b);
    expect(await engine.abort(executor.url, { runId: b.runId, attempt: 1, reason: 'REPLACED' })).toMatchObject({ status: 202, body: { aborted: true, state: 'QUEUED' } });
    const cb = (await engine.finalCallback(b.runId)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'REPLACED', error: expect.stringMatching(/before it started/) });
    expect(cb.startedAt).toBeUndefined();
    release.open();
    await engine.finalCallback(a.runId);
    expect(runs).toBe(1);
  });

  it('a run sent ahead (startInMs) is accepted at once and starts at its instant; an abort before it drops it', async () => {
    const clock = new FakeClock();
    const starts = new Map<number, number>();
    const stamp = defineHandler('stamp', (ctx) => {
      starts.set(ctx.runId, clock.now());
      return 'ok';
    });
    const executor = await harness.start(engine, { handlers: [stamp], concurrency: 1, queueLimit: 1, clock });
    const [ahead, dropped] = [engine.request({ handler: 'stamp', startInMs: 150 }), engine.request({ handler: 'stamp', startInMs: 150 })];
    const sentAt = clock.now();
    expect((await engine.dispatch(executor.url, ahead)).status).toBe(202);
    expect((await engine.dispatch(executor.url, dropped)).status).toBe(202);
    // Both places (1 worker + 1 in line) are spoken for until the instant: a third sent ahead is refused as busy.
    expect((await engine.dispatch(executor.url, engine.request({ handler: 'stamp', startInMs: 150 }))).status).toBe(429);
    expect(executor.runtime.heartbeatPayload()).toMatchObject({ inFlight: 2, queued: 2, protocolVersion: 3 });
    const status = await engine.send(executor.url, 'GET', `/baton/runs/${ahead.runId}`, undefined);
    expect(status.body).toMatchObject({ attempts: [{ attempt: 1, state: 'QUEUED' }] });
    expect(await engine.abort(executor.url, { runId: dropped.runId, attempt: 1, reason: 'CANCELLED' })).toMatchObject({ status: 202, body: { aborted: true, state: 'QUEUED' } });
    expect((await engine.finalCallback(dropped.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'CANCELLED', error: expect.stringMatching(/before it started/) });
    await clock.advance(149);
    expect([starts.size, executor.runtime.stats().queued]).toEqual([0, 1]); // a millisecond before its instant: still waiting
    await clock.advance(1);
    const cb = (await engine.finalCallback(ahead.runId)).body;
    expect(cb).toMatchObject({ outcome: 'SUCCEEDED', startedAt: sentAt + 150 });
    expect(starts.get(ahead.runId)).toBe(sentAt + 150);
    expect(starts.has(dropped.runId)).toBe(false);
  });

  it('lets a run sent ahead go without starting it when no engine answered a heartbeat within the lease before its instant (ABORTED NO_CONTACT)', async () => {
    const clock = new FakeClock();
    const starts: number[] = [];
    const stamp = defineHandler('stamp', (ctx) => void starts.push(ctx.runId));
    // Acks say 1,000 ms: the lease is 2,000 ms from the round of the last heartbeat an engine answered.
    const lease = await FakeEngine.start({ tenantId: engine.tenantId, secret: engine.secret, intervalMs: 1_000 });
    try {
      const executor = await harness.start(lease, { handlers: [stamp], clock });
      await lease.waitFor(() => lease.heartbeats.some((h) => h.status === 200));
      lease.failHeartbeats(1_000_000); // cut off from here on
      const within = lease.request({ handler: 'stamp', startInMs: 2_000 });
      const beyond = lease.request({ handler: 'stamp', startInMs: 2_001 });
      for (const run of [within, beyond]) expect((await lease.dispatch(executor.url, run)).status).toBe(202);
      await clock.advance(2_000);
      await lease.finalCallback(within.runId);
      await clock.advance(1);
      expect((await lease.finalCallback(beyond.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'NO_CONTACT', error: expect.stringMatching(/^not started: .*no engine has answered a heartbeat for 2001 ms/) });
      expect(starts).toEqual([within.runId]);
      // A run due now is not held: it starts, contact or not.
      const now = lease.request({ handler: 'stamp' });
      await lease.dispatch(executor.url, now);
      expect((await lease.finalCallback(now.runId)).body).toMatchObject({ outcome: 'SUCCEEDED' });
    } finally {
      await harness.cleanup();
      await lease.close();
    }
  });

  it("lets every run held for its instant go when an ack's handBacks changes (the engines dispatched them again); the first ack only sets it", async () => {
    const starts: number[] = [];
    const stamp = defineHandler('stamp', (ctx) => void starts.push(ctx.runId));
    const fenced = await FakeEngine.start({ tenantId: engine.tenantId, secret: engine.secret, intervalMs: 20 });
    try {
      fenced.handBacks = 7; // what the executor row says at its first heartbeat: nothing to let go
      const executor = await harness.start(fenced, { handlers: [stamp] });
      await fenced.waitFor(() => fenced.heartbeats.some((h) => h.status === 200));
      const held = fenced.request({ handler: 'stamp', startInMs: 60_000 });
      expect((await fenced.dispatch(executor.url, held)).status).toBe(202);
      const acks = fenced.heartbeats.length;
      await fenced.waitFor(() => fenced.heartbeats.length > acks + 1);
      expect(executor.runtime.stats().queued).toBe(1);
      fenced.handBacks = 8;
      expect((await fenced.finalCallback(held.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'NO_CONTACT', error: expect.stringMatching(/handed back/) });
      expect([starts, executor.runtime.stats().queued]).toEqual([[], 0]);
      // Said again, it is the same attempt: known, not run.
      expect((await fenced.dispatch(executor.url, held)).status).toBe(202);
      expect(starts).toEqual([]);
    } finally {
      await harness.cleanup();
      await fenced.close();
    }
  });

  it('counts a run sent ahead from its request’s arrival (handle’s arrivedAt), not from when the request is handled', async () => {
    const clock = new FakeClock();
    const starts = new Map<number, number>();
    const stamp = defineHandler('stamp', (ctx) => void starts.set(ctx.runId, clock.now()));
    const executor = await harness.start(engine, { handlers: [stamp], clock });
    // Heard by the engine first: a run sent ahead starts only within the lease of an answered heartbeat.
    await engine.waitFor(() => engine.heartbeats.some((h) => h.status === 200 && h.body.url === executor.url));
    const run = engine.request({ handler: 'stamp', startInMs: 1_000 });
    const body = JSON.stringify(run);
    const arrivedAt = clock.now() - 900; // the body took this long to read
    const answer = await executor.runtime.handle({ method: 'POST', path: PATHS.dispatch, headers: { 'content-type': 'application/json', ...sign(engine.secret, engine.tenantId, 'POST', PATHS.dispatch, body, Date.now()) }, body, arrivedAt });
    expect(answer.status).toBe(202);
    // Counted from when the body was read, it starts 100 ms from now (900 ms later were it counted from now).
    await clock.advance(99);
    expect(starts.has(run.runId)).toBe(false);
    await clock.advance(1);
    await engine.finalCallback(run.runId);
    expect(starts.get(run.runId)).toBe(arrivedAt + 1_000);
  });

  it('refuses a startInMs that is not a whole number of ms from 0 to 60000, naming the field', async () => {
    const executor = await harness.start(engine, { handlers: [sleeper()] });
    for (const startInMs of [-1, 1.5, '10', 60_001]) {
      const answer = await engine.dispatch(executor.url, { ...engine.request({ handler: 'sleep' }), startInMs } as never);
      expect(answer).toMatchObject({ status: 400, body: { reason: 'BAD_REQUEST', field: 'startInMs' } });
    }
  });

  it('aborts a run when its deadline passes; a run whose deadline passed in the queue never starts', async () => {
    const executor = await harness.start(engine, { handlers: [sleeper()] });
    const req = engine.request({ handler: 'sleep', deadline: Date.now() + 150 });
    await engine.dispatch(executor.url, req);
    const cb = (await engine.finalCallback(req.runId)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', error: expect.stringMatching(/deadline/) });
    expect(cb.finishedAt!).toBeGreaterThanOrEqual(req.deadline); // and not its 30 s sleep's end: ABORTED by the deadline
    const late = engine.request({ handler: 'sleep', deadline: Date.now() - 1 });
    expect((await engine.dispatch(executor.url, late)).status).toBe(202);
    expect((await engine.finalCallback(late.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', error: expect.stringMatching(/before the handler started/) });
  });

  it("on an executor whose clock is 60 s ahead of the engine's: a handler with a 5 s timeout runs its 5 s of this clock (deadlineInMs from the arrival), and is aborted then", async () => {
    const clock = new FakeClock(Date.now() + 60_000); // the executor's clock, a minute ahead of the engine's (Date.now())
    const seen: { started?: boolean; reason?: unknown } = {};
    let localDeadline = 0;
    const sleep = defineHandler('sleep', async (ctx) => {
      localDeadline = ctx.deadline;
      seen.started = true;
      try {
        await ctx.sleep(30_000);
      } catch (err) {
        seen.reason = ctx.signal.reason;
        throw err;
      }
    });
    const executor = await harness.start(engine, { handlers: [sleep], clock });
    const arrivedAt = clock.now(); // the fake clock moves only when told: the request arrives at this time
    // The engine's deadline is 5 s after its send on its own clock: 55 s before the executor's "now".
    const req = engine.request({ handler: 'sleep', deadline: Date.now() + 5_000, deadlineInMs: 5_000 });
    expect((await engine.dispatch(executor.url, req)).status).toBe(202);
    // Judged by the engine's deadline on this clock, it ended before it started (55 s past).
    await engine.waitFor(() => seen.started || engine.finalsFor(req.runId).length > 0, 'the handler started or the run ended');
    expect(engine.finalsFor(req.runId).map((c) => c.error)).toEqual([]);
    expect(localDeadline).toBe(arrivedAt + 5_000); // ctx.deadline is on the executor's clock
    await clock.advance(4_999);
    expect(seen.reason).toBeUndefined();
    expect(engine.finalsFor(req.runId)).toHaveLength(0);
    await clock.advance(1);
    const cb = (await engine.finalCallback(req.runId)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', startedAt: arrivedAt, finishedAt: arrivedAt + 5_000 });
    expect(seen.reason).toBeInstanceOf(RunAbortedError);
  });

  it('from an engine that sends no deadlineInMs: judges the deadline on its own clock, before the start and while the handler runs', async () => {
    const clock = new FakeClock();
    const executor = await harness.start(engine, { handlers: [sleeper()], clock });
    const passed = engine.request({ handler: 'sleep', deadline: clock.now() - 1 });
    expect((await engine.dispatch(executor.url, passed)).status).toBe(202);
    expect((await engine.finalCallback(passed.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', error: expect.stringMatching(/before the handler started/) });
    const req = engine.request({ handler: 'sleep', deadline: clock.now() + 5_000 });
    expect((await engine.dispatch(executor.url, req)).status).toBe(202);
    await engine.waitFor(() => clock.pending > 0, 'the handler sleeping');
    await clock.advance(4_999);
    expect(engine.finalsFor(req.runId)).toHaveLength(0);
    await clock.advance(1);
    expect((await engine.finalCallback(req.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', finishedAt: req.deadline });
  });

  it('refuses a deadlineInMs that is not a finite number ≥ 0, naming the field', async () => {
    const executor = await harness.start(engine, { handlers: [sleeper()] });
    for (const deadlineInMs of [-1, '10', null, true]) {
      const answer = await engine.dispatch(executor.url, { ...engine.request({ handler: 'sleep' }), deadlineInMs } as never);
      expect(answer).toMatchObject({ status: 400, body: { reason: 'BAD_REQUEST', field: 'deadlineInMs', message: expect.stringMatching(/^deadlineInMs: must be a finite number ≥ 0/) } });
    }
    const infinite = JSON.stringify(engine.request({ handler: 'sleep' })).replace(/}$/, ',"deadlineInMs":1e999}');
    expect(await engine.dispatch(executor.url, null as never, { rawBody: infinite })).toMatchObject({ status: 400, body: { field: 'deadlineInMs', message: expect.stringMatching(/Infinity/) } });
    const none = engine.request({ handler: 'sleep', deadlineInMs: 0 });
    expect((await engine.dispatch(executor.url, none)).status).toBe(202);
    expect((await engine.finalCallback(none.runId)).body).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', error: expect.stringMatching(/before the handler started/) });
  });

  it('reports ABORTED after abortGraceMs for a handler that ignores the signal, and keeps its slot taken', async () => {
    const release = gate();
    let started = false;
    const stubborn = defineHandler('stubborn', () => ((started = true), release.wait.then(() => 'finished anyway')));
    const executor = await harness.start(engine, { handlers: [stubborn, defineHandler('noop', () => 1)], concurrency: 1, abortGraceMs: 50 });
    const req = engine.request({ handler: 'stubborn' });
    await engine.dispatch(executor.url, req);
    await engine.waitFor(() => started);
    await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'TIMEOUT' });
    const cb = (await engine.finalCallback(req.runId)).body;
    expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'TIMEOUT', error: expect.stringMatching(/did not stop within 50 ms/) });
    expect(executor.runtime.stats()).toMatchObject({ running: 1, abandoned: 1 });
    const next = engine.request({ handler: 'noop' });
    await engine.dispatch(executor.url, next);
    expect(executor.runtime.stats()).toMatchObject({ running: 1, queued: 1 }); // queued behind the stubborn one
    expect(engine.finalsFor(next.runId)).toHaveLength(0);
    release.open();
    await engine.finalCallback(next.runId);
    expect(engine.finalsFor(req.runId)).toHaveLength(1);
    expect(executor.runtime.stats().abandoned).toBe(0);
  });

  it("echoes a traced run's lines to the logger with its runId, attempt, trace_id and span_id (its handler span's, as the callback says); an untraced run's without", async () => {
    const lines: Array<[string, unknown]> = [];
    const logger = { info: (m: string, f?: unknown) => void lines.push([m, f]), warn: () => undefined, error: () => undefined };
    const talk = defineHandler('talk', (ctx) => ctx.log.info('charging card %d', 7));
    const executor = await harness.start(engine, { handlers: [talk], echoRunLogs: true, logger });
    const traced = engine.request({ handler: 'talk', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    await engine.dispatch(executor.url, traced);
    const [, , handlerSpan] = (await engine.finalCallback(traced.runId)).body.traceparent!.split('-');
    const plain = engine.request({ handler: 'talk' });
    await engine.dispatch(executor.url, plain);
    await engine.finalCallback(plain.runId);
    expect(lines).toEqual([
      [`[talk run ${traced.runId}#1] info: charging card 7`, { runId: traced.runId, attempt: 1, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: handlerSpan }],
      [`[talk run ${plain.runId}#1] info: charging card 7`, undefined],
    ]);
  });

  it("passes an unsampled run's context (sampled=0) to its handler and log lines, and names no span in its callback", async () => {
    const lines: Array<[string, unknown]> = [];
    const logger = { info: (m: string, f?: unknown) => void lines.push([m, f]), warn: () => undefined, error: () => undefined };
    let seen: string | undefined;
    const talk = defineHandler('talk', (ctx) => {
      seen = ctx.traceparent;
      ctx.log.info('charging card %d', 7);
    });
    const executor = await harness.start(engine, { handlers: [talk], echoRunLogs: true, logger });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    const req = engine.request({ handler: 'talk', traceparent });
    await engine.dispatch(executor.url, req);
    const cb = (await engine.finalCallback(req.runId)).body;
    expect(cb.outcome).toBe('SUCCEEDED');
    expect(cb).not.toHaveProperty('traceparent');
    expect(seen).toBe(traceparent);
    expect(lines).toEqual([[`[talk run ${req.runId}#1] info: charging card 7`, { runId: req.runId, attempt: 1, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' }]]);
  });

  it('sends the log tail with the final callback, capped, with a marker when lines were dropped', async () => {
    const chatty = defineHandler('chatty', (ctx) => {
      for (let i = 1; i <= 500; i++) ctx.log.info('line %d of %s', i, 'many');
      ctx.log.warn('careful');
      ctx.log.error('bad: %o', { code: 7 });
      ctx.log.debug('last');
      return null;
    });
    const executor = await harness.start(engine, { handlers: [chatty], logTail: { maxLines: 200, maxBytes: 32_768 } });
    const req = engine.request({ handler: 'chatty' });
    await engine.dispatch(executor.url, req);
    const logs = (await engine.finalCallback(req.runId)).body.logs!;
    expect(logs).toHaveLength(201);
    expect(logs[0]).toMatchObject({ level: 'warn', message: expect.stringMatching(/log truncated: 303 earlier line\(s\) dropped/) });
    expect(logs[1].message).toBe('line 304 of many');
    expect(logs.slice(-4).map((l) => [l.level, l.message])).toEqual([
      ['info', 'line 500 of many'],
      ['warn', 'careful'],
      ['error', 'bad: { code: 7 }'],
      ['debug', 'last'],
    ]);
    expect(logs.every((l) => typeof l.at === 'number')).toBe(true);

    const byBytes = defineHandler('bytes', (ctx) => {
      for (let i = 0; i < 50; i++) ctx.log.info('%s', 'y'.repeat(1000));
      ctx.log.info('z'.repeat(10_000));
    });
    const small = await harness.start(engine, { handlers: [byBytes], logTail: { maxLines: 200, maxBytes: 4096, maxLineBytes: 2048 } });
    const r2 = engine.request({ handler: 'bytes' });
    await engine.dispatch(small.url, r2);
    const tail = (await engine.finalCallback(r2.runId)).body.logs!;
    const bytes = tail.slice(1).reduce((n, l) => n + Buffer.byteLength(l.message), 0);
    expect(bytes).toBeLessThanOrEqual(4096);
    expect(tail[0].message).toMatch(/log truncated/);
    expect(tail.at(-1)!.message).toMatch(/^z+… \[truncated\]$/);
    expect(Buffer.byteLength(tail.at(-1)!.message)).toBeLessThanOrEqual(2048);
  });

  it('sends throttled interim progress callbacks; alarms ride an interim callback once, or the final one', async () => {
    const progress = defineHandler('progress', async (ctx) => {
      for (let p = 0; p <= 100; p += 5) ctx.progress(p);
      ctx.alarm('WARNING', 'disk at 91%', { disk: '/data' });
      await ctx.sleep(150);
      ctx.progress(150); // clamped to 100
      await ctx.sleep(60);
      return 'ok';
    });
    const executor = await harness.start(engine, { handlers: [progress], progressIntervalMs: 40 });
    const req = engine.request({ handler: 'progress' });
    await engine.dispatch(executor.url, req);
    const final = (await engine.finalCallback(req.runId)).body;
    const interim = engine.callbacks.filter((c) => c.body.runId === req.runId && !c.body.outcome).map((c) => c.body);
    expect(interim.length).toBeGreaterThanOrEqual(2);
    expect(interim.length).toBeLessThanOrEqual(6); // 21 progress calls, throttled
    expect(interim[0]).toMatchObject({ runId: req.runId, attempt: 1, tenantId: 'acme', progress: 0, startedAt: expect.any(Number) });
    expect(interim.map((c) => c.progress).at(-1)).toBe(100);
    const alarms = interim.flatMap((c) => c.alarms ?? []);
    // Each alarm carries a stable id (a UUID): the engine records it once, consumers drop repeats by it.
    expect(alarms).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), severity: 'WARNING', message: 'disk at 91%', data: { disk: '/data' }, at: expect.any(Number) }]);
    expect(final.alarms).toBeUndefined(); // already delivered
    expect(final.progress).toBe(100);

    // When the interim callback is not taken, the alarm rides the final callback.
    const quick = defineHandler('quick-alarm', (ctx) => {
      ctx.alarm('CRITICAL', 'ledger mismatch');
      return 1;
    });
    const other = await harness.start(engine, { handlers: [quick], progressIntervalMs: 10_000 });
    engine.failCallbacks(1, 500);
    const r2 = engine.request({ handler: 'quick-alarm' });
    await engine.dispatch(other.url, r2);
    const f2 = (await engine.finalCallback(r2.runId)).body;
    expect(f2.alarms).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), severity: 'CRITICAL', message: 'ledger mismatch', at: expect.any(Number) }]);
  });
});
