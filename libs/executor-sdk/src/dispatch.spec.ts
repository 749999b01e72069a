import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isTenantMismatch, PATHS, SIGNATURE_HEADERS, sign, TENANT_MISMATCH_REFUSAL } from '@baton/protocol';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness, gate } from '../../../test/protocol/executor-harness';
import { defineHandler, type HandlerContext } from './index';

describe('executor runtime: dispatch', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(() => harness.cleanup());
  afterAll(() => engine.close());

  it('answers 202 at once, before the handler runs; the handler runs after the response is written', async () => {
    const order: string[] = [];
    const release = gate();
    const blocking = defineHandler('blocking', async () => {
      order.push('handler started');
      // Blocks the event loop for a while, then waits for the test: a 202 sent after the
      // handler would arrive only after the gate opens, which happens only after the 202.
      const until = Date.now() + 50;
      while (Date.now() < until) {
        // busy
      }
      await release.wait;
      order.push('handler finished');
      return 'done';
    });
    const executor = await harness.start(engine, { handlers: [blocking] });
    executor.server.prependListener('request', (_req, res) => res.once('finish', () => order.push('response written')));
    const req = engine.request({ handler: 'blocking' });
    const answer = await engine.dispatch(executor.url, req);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: true, runId: req.runId, attempt: 1, credit: expect.any(Number), creditSeq: expect.any(Number) });
    expect(order[0]).toBe('response written');
    await engine.waitFor(() => order.includes('handler started'), 'the handler to start');
    expect(order).toEqual(['response written', 'handler started']);
    release.open();
    const cb = await engine.finalCallback(req.runId);
    expect(cb.body).toMatchObject({ outcome: 'SUCCEEDED', result: 'done', tenantId: engine.tenantId });
    expect(order).toEqual(['response written', 'handler started', 'handler finished']);
  });

  it('hands the handler its context and reports result, timings and executor id', async () => {
    let seen: HandlerContext<{ n: number }> | undefined;
    const echo = defineHandler<{ n: number }>('echo', (ctx) => {
      seen = ctx;
      return { doubled: ctx.params.n * 2 };
    });
    const executor = await harness.start(engine, { handlers: [echo] });
    await engine.waitFor(() => engine.heartbeats.find((h) => h.body.url === executor.url && h.status === 200), 'registration');
    const req = engine.request({ handler: 'echo', params: { n: 21 }, attempt: 3, taskId: 9, taskName: 'nightly' });
    expect((await engine.dispatch(executor.url, req)).status).toBe(202);
    const { body: cb, signature } = await engine.finalCallback(req.runId, 3);
    expect(signature).toEqual({ ok: true });
    expect(cb).toMatchObject({ runId: req.runId, attempt: 3, tenantId: 'acme', outcome: 'SUCCEEDED', result: { doubled: 42 }, executorId: expect.any(Number) });
    expect(cb.startedAt).toBeGreaterThanOrEqual(req.scheduledAt);
    expect(cb.finishedAt).toBeGreaterThanOrEqual(cb.startedAt!);
    expect(seen).toMatchObject({ runId: req.runId, attempt: 3, taskId: 9, taskName: 'nightly', handler: 'echo', tenantId: 'acme', scheduledAt: req.scheduledAt, deadline: req.deadline, params: { n: 21 } });
    expect(seen!.signal.aborted).toBe(false);
  });

  it('reports a thrown error as FAILED with its stack, and unserialisable or oversized results as FAILED', async () => {
    const handlers = [
      defineHandler('throws', () => {
        throw new TypeError('no such customer');
      }),
      defineHandler('circular', () => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      }),
      defineHandler('huge', () => 'x'.repeat(5000)),
    ];
    const executor = await harness.start(engine, { handlers, maxResultBytes: 1000 });
    const [r1, r2, r3] = [engine.request({ handler: 'throws' }), engine.request({ handler: 'circular' }), engine.request({ handler: 'huge' })];
    for (const r of [r1, r2, r3]) expect((await engine.dispatch(executor.url, r)).status).toBe(202);
    const c1 = (await engine.finalCallback(r1.runId)).body;
    expect(c1.outcome).toBe('FAILED');
    expect(c1.error).toMatch(/^TypeError: no such customer\n\s+at /);
    expect((await engine.finalCallback(r2.runId)).body).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/not JSON-serialisable/) });
    expect((await engine.finalCallback(r3.runId)).body).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/more than maxResultBytes \(1000\)/) });
  });

  it('refuses with 429 BUSY when the pool and the queue are full, and takes work again when a slot frees', async () => {
    const release = gate();
    let runs = 0;
    const wait = defineHandler('wait', async () => {
      runs++;
      await release.wait;
    });
    const executor = await harness.start(engine, { handlers: [wait], concurrency: 1, queueLimit: 1 });
    const a = await engine.dispatch(executor.url, engine.request({ handler: 'wait' }));
    const b = await engine.dispatch(executor.url, engine.request({ handler: 'wait' }));
    const busyReq = engine.request({ handler: 'wait' });
    const c = await engine.dispatch(executor.url, busyReq);
    expect([a.status, b.status, c.status]).toEqual([202, 202, 429]);
    expect(c.body).toMatchObject({ accepted: false, reason: 'BUSY' });
    expect(executor.runtime.heartbeatPayload()).toMatchObject({ capacity: 1, inFlight: 2, queued: 1, queueLimit: 1 });
    release.open();
    await engine.waitFor(() => engine.finalsFor().length >= 2 && runs === 2, 'both runs');
    // The refused run was never taken: the same run can be dispatched again and runs.
    expect((await engine.dispatch(executor.url, busyReq)).status).toBe(202);
    await engine.finalCallback(busyReq.runId);
    expect(runs).toBe(3);
  });

  it('refuses forged, unsigned, stale, tampered or other-tenant requests with 401, without running anything', async () => {
    let runs = 0;
    const executor = await harness.start(engine, { handlers: [defineHandler('noop', () => void runs++)] });
    const req = engine.request();
    const body = JSON.stringify(req);
    const attempts = {
      unsigned: await engine.dispatch(executor.url, req, { sign: false }),
      'wrong secret': await engine.dispatch(executor.url, req, { secret: 'forged' }),
      'stale timestamp': await engine.dispatch(executor.url, req, { timestamp: Date.now() - 301_000 }),
      'other tenant header': await engine.dispatch(executor.url, req, { tenant: 'globex' }),
      'signed for another path': await engine.dispatch(executor.url, req, { signedPath: PATHS.callback }),
    };
    // Tampered: the signature is over the original body, another body is sent.
    const headers = { ...sign(engine.secret, engine.tenantId, 'POST', PATHS.dispatch, body, Date.now()), 'content-type': 'application/json' };
    const tampered = await fetch(executor.url + PATHS.dispatch, { method: 'POST', headers, body: body.replace('"attempt":1', '"attempt":2') });
    expect(tampered.status).toBe(401);
    for (const [name, answer] of Object.entries(attempts)) {
      expect({ name, status: answer.status, reason: answer.body.reason }).toEqual({ name, status: 401, reason: 'UNAUTHORIZED' });
    }
    expect(attempts['unsigned'].body.message).toMatch(/missing/);
    expect(attempts['stale timestamp'].body.message).toMatch(/timestamp/);
    expect(attempts['other tenant header'].body).toEqual(TENANT_MISMATCH_REFUSAL);
    // Abort and status are signed too.
    expect((await engine.abort(executor.url, { runId: 1, attempt: 1, reason: 'CANCELLED' }, { secret: 'forged' })).status).toBe(401);
    expect((await engine.status(executor.url, 1, { sign: false })).status).toBe(401);
    // Refused before the pool: nothing was taken that could run later.
    expect(executor.runtime.stats()).toMatchObject({ running: 0, queued: 0 });
    expect(runs).toBe(0);
    // The same request, properly signed, runs.
    expect((await engine.dispatch(executor.url, req)).status).toBe(202);
    await engine.finalCallback(req.runId);
    expect(runs).toBe(1);
  });

  it("answers another tenant's request, signed with that tenant's secret, that it serves another tenant (not that the signature does not match), on every signed route; nothing runs", async () => {
    let runs = 0;
    const executor = await harness.start(engine, { handlers: [defineHandler('noop', () => void runs++)] });
    const refused: string[] = [];
    executor.events.on('refused', (event) => refused.push(event.message));
    const req = engine.request();
    const globex = { tenant: 'globex', secret: 'globex-secret' };
    const answers = [
      await engine.dispatch(executor.url, req, globex),
      await engine.dispatchBatch(executor.url, [req], globex),
      await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' }, globex),
      await engine.status(executor.url, req.runId, globex),
      // The tenant is judged before the signature, whatever it is.
      await engine.dispatch(executor.url, req, { tenant: 'globex', respell: (s) => s.toUpperCase() }),
    ];
    for (const answer of answers) expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: TENANT_MISMATCH_REFUSAL });
    expect(refused).toEqual(answers.map(() => 'x-baton-tenant: this executor serves another tenant'));
    expect(isTenantMismatch(answers[0].body)).toBe(true);
    // Its own tenant with a wrong secret is still told the signature does not match.
    const forged = await engine.dispatch(executor.url, req, { secret: 'globex-secret' });
    expect(forged.body).toMatchObject({ reason: 'UNAUTHORIZED', message: expect.stringContaining('the signature does not match') });
    expect(isTenantMismatch(forged.body)).toBe(false);
    expect(executor.runtime.stats()).toMatchObject({ running: 0, queued: 0 });
    expect(runs).toBe(0);
  });

  it('refuses bad bodies with 400 naming the field, an unknown handler with 404, an oversized body with 413', async () => {
    const executor = await harness.start(engine, { handlers: [defineHandler('noop', () => null)], maxBodyBytes: 2048 });
    const base = engine.request();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing runId', { ...base, runId: undefined }, 'runId'],
      ['attempt 0', { ...base, attempt: 0 }, 'attempt'],
      ['runId not an integer', { ...base, runId: '7' }, 'runId'],
      ['no handler', { ...base, handler: '' }, 'handler'],
      ['no params', { ...base, params: undefined }, 'params'],
      ['callbackUrls not URLs', { ...base, callbackUrls: ['ftp://x'] }, 'callbackUrls[0]'],
      ['deadline missing', { ...base, deadline: undefined }, 'deadline'],
      ['another tenant in the body', { ...base, tenantId: 'globex' }, 'tenantId'],
    ];
    for (const [name, body, field] of cases) {
      const answer = await engine.dispatch(executor.url, body as never);
      expect({ name, status: answer.status, reason: answer.body.reason, field: answer.body.field }).toEqual({ name, status: 400, reason: 'BAD_REQUEST', field });
      expect(answer.body.message).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    }
    const malformed = await engine.send(executor.url, 'POST', PATHS.dispatch, undefined, { rawBody: '{"runId": 1,' });
    expect(malformed).toMatchObject({ status: 400, body: { field: 'body', message: expect.stringMatching(/malformed JSON/) } });
    const unknown = await engine.dispatch(executor.url, engine.request({ handler: 'nope' }));
    expect(unknown).toMatchObject({ status: 404, body: { accepted: false, reason: 'UNKNOWN_HANDLER', field: 'handler', message: expect.stringMatching(/"nope".*noop/) } });
    const big = await engine.dispatch(executor.url, engine.request({ params: 'x'.repeat(4096) }));
    expect(big).toMatchObject({ status: 413, body: { field: 'body' } });
    expect((await engine.send(executor.url, 'GET', '/baton/nothing', undefined)).status).toBe(404);
  });

  it('runs a repeated dispatch of the same attempt once (running or finished); a new attempt runs again', async () => {
    const release = gate();
    const calls: number[] = [];
    const once = defineHandler('once', async (ctx) => {
      calls.push(ctx.attempt);
      await release.wait;
      return ctx.attempt;
    });
    const executor = await harness.start(engine, { handlers: [once] });
    const req = engine.request({ handler: 'once' });
    expect((await engine.dispatch(executor.url, req)).status).toBe(202);
    await engine.waitFor(() => calls.length === 1);
    const again = await engine.dispatch(executor.url, req);
    expect(again).toMatchObject({ status: 202, body: { accepted: true, runId: req.runId, attempt: 1 } });
    release.open();
    await engine.finalCallback(req.runId);
    expect((await engine.dispatch(executor.url, req)).status).toBe(202); // recently finished
    expect(executor.runtime.stats()).toMatchObject({ running: 0, queued: 0 }); // not taken again: it will not run
    expect(calls).toEqual([1]);
    expect(engine.callbacks.filter((c) => c.body.runId === req.runId && c.body.outcome)).toHaveLength(1);
    expect((await engine.dispatch(executor.url, { ...req, attempt: 2 })).status).toBe(202);
    await engine.finalCallback(req.runId, 2);
    expect(calls).toEqual([1, 2]);
  });

  it('keeps a bounded memory of finished attempts (recentlyFinishedLimit)', async () => {
    let runs = 0;
    const executor = await harness.start(engine, { handlers: [defineHandler('noop', () => void runs++)], recentlyFinishedLimit: 2 });
    const reqs = [engine.request(), engine.request(), engine.request()];
    for (const r of reqs) {
      await engine.dispatch(executor.url, r);
      await engine.finalCallback(r.runId);
    }
    expect((await engine.status(executor.url, reqs[0].runId)).body).toEqual({ runId: reqs[0].runId, attempts: [] });
    expect((await engine.status(executor.url, reqs[2].runId)).body).toMatchObject({ attempts: [{ attempt: 1, state: 'FINISHED', outcome: 'SUCCEEDED', callbackPending: false }] });
    expect(runs).toBe(3);
  });

  it('answers status queries and the unsigned health probe', async () => {
    const release = gate();
    let started = 0;
    const executor = await harness.start(engine, { handlers: [defineHandler('wait', () => (started++, release.wait))], concurrency: 1 });
    const [a, b] = [engine.request({ handler: 'wait' }), engine.request({ handler: 'wait' })];
    await engine.dispatch(executor.url, a);
    await engine.dispatch(executor.url, b);
    await engine.waitFor(() => started === 1);
    expect((await engine.status(executor.url, a.runId)).body).toMatchObject({ runId: a.runId, attempts: [{ attempt: 1, state: 'RUNNING', startedAt: expect.any(Number) }] });
    expect((await engine.status(executor.url, b.runId)).body).toEqual({ runId: b.runId, attempts: [{ attempt: 1, state: 'QUEUED' }] });
    const health = await fetch(`${executor.url}/baton/health`);
    expect(await health.json()).toEqual({ status: 'UP', capacity: 1, inFlight: 2 });
    release.open();
    await engine.finalCallback(b.runId);
  });

  it('registers with a signed heartbeat (capacity, load, handlers) and follows the ack interval', async () => {
    const fast = await FakeEngine.start({ intervalMs: 30 });
    try {
      const executor = await harness.start(fast, { handlers: [defineHandler('a', () => 1), defineHandler('b', () => 2)], heartbeatIntervalMs: 5000, concurrency: 3, queueLimit: 7 });
      const first = await fast.waitFor(() => fast.heartbeats[0], 'a heartbeat');
      expect(first.signature).toEqual({ ok: true });
      expect(first.headers[SIGNATURE_HEADERS.tenant]).toBe('acme');
      expect(first.body).toMatchObject({ tenantId: 'acme', app: 'test-app', url: executor.url, capacity: 3, inFlight: 0, handlers: ['a', 'b'], queueLimit: 7, protocolVersion: 3, draining: false, active: [], spooled: 0 });
      // The ack said 30 ms (configured: 5 s): the loop takes it as its interval, and beats on.
      // Checked on the loop, not by timing the beats, which a loaded machine stretches.
      await fast.waitFor(() => fast.heartbeats.length >= 4, '4 heartbeats at the acked interval');
      expect(executor.runtime['heartbeat']?.interval).toBe(30);
      expect(executor.runtime.stats().executorId).toBe(1);
    } finally {
      await harness.cleanup();
      await fast.close();
    }
  });
});
