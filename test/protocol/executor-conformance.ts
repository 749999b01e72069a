import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonValue } from '@baton/domain';
import { PATHS, SIGNATURE_HEADERS, sign, TENANT_MISMATCH_REFUSAL } from '@baton/protocol';
import { FakeEngine } from './fake-engine';
import { startExecutorProcess, type ExecutorCommand, type ExecutorProcess } from './executor-process';

/** An executor implementation to check from the outside. */
export interface ConformanceTarget {
  /** Shown in the test names. */
  name: string;
  /** How to start it with the given environment (BATON_* variables, see apps/demo-executor/src/config.ts). */
  command(env: Record<string, string>): ExecutorCommand;
  /**
   * Its handlers: one that succeeds at once, one that sleeps `params.ms` honouring aborts, one
   * that fails, one that fails saying retrying cannot help (a NonRetryableError), one whose
   * result has the `shardIndex` and `shardTotal` it was told, and one that writes a log line
   * about every `params.ms / 10` for `params.ms` — and, for an SDK (`reportsProgress`), sets the
   * run's progress at each line, up to 100 (the protocol allows an executor without progress).
   */
  handlers: {
    ok: { handler: string; params?: JsonValue };
    sleep: { handler: string; params: (ms: number) => JsonValue };
    fail: { handler: string; params?: JsonValue };
    failNonRetryable: { handler: string; params?: JsonValue };
    shard: { handler: string };
    logSteps: { handler: string; params: (ms: number) => JsonValue; reportsProgress?: boolean };
  };
}

const CONCURRENCY = 2;
const QUEUE_LIMIT = 1;

/**
 * The executor protocol, checked from the outside (this suite depends on the protocol only, never on the SDK) against a fake engine: the executor runs as
 * a separate OS process configured by environment, and must print `READY <url>`.
 */
export function describeExecutorConformance(target: ConformanceTarget): void {
  describe(`executor protocol conformance: ${target.name}`, () => {
    let engine: FakeEngine;
    let executor: ExecutorProcess;
    let dir: string;
    const { ok, sleep, fail, failNonRetryable } = target.handlers;

    beforeAll(async () => {
      engine = await FakeEngine.start({ tenantId: 'tenant-c', secret: 'conformance-secret', intervalMs: 200 });
      dir = mkdtempSync(join(tmpdir(), 'baton-conformance-'));
      executor = await startExecutorProcess(
        target.command({
          BATON_TENANT: engine.tenantId,
          BATON_EXECUTOR_SECRET: engine.secret,
          BATON_ENGINE_URLS: engine.url,
          BATON_EXECUTOR_APP: 'conformance',
          BATON_EXECUTOR_HOST: '127.0.0.1',
          BATON_EXECUTOR_PORT: '0',
          BATON_EXECUTOR_CONCURRENCY: String(CONCURRENCY),
          BATON_EXECUTOR_QUEUE_LIMIT: String(QUEUE_LIMIT),
          BATON_EXECUTOR_HEARTBEAT_MS: '2000',
          BATON_EXECUTOR_RETRY_BASE_MS: '20',
          BATON_EXECUTOR_RETRY_MAX_MS: '200',
          BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '5000',
          BATON_EXECUTOR_SPOOL: join(dir, 'spool.jsonl'),
        }),
      );
    });

    /** An executor process of its own, for a test that stops it (the others keep theirs, whatever the order). */
    const startOwn = async (app: string, env: Record<string, string> = {}): Promise<{ process: ExecutorProcess; close(): Promise<void> }> => {
      const ownDir = mkdtempSync(join(tmpdir(), `baton-conformance-${app}-`));
      const own = await startExecutorProcess(
        target.command({
          BATON_TENANT: engine.tenantId,
          BATON_EXECUTOR_SECRET: engine.secret,
          BATON_ENGINE_URLS: engine.url,
          BATON_EXECUTOR_APP: app,
          BATON_EXECUTOR_HOST: '127.0.0.1',
          BATON_EXECUTOR_PORT: '0',
          BATON_EXECUTOR_HEARTBEAT_MS: '2000',
          BATON_EXECUTOR_SPOOL: join(ownDir, 'spool.jsonl'),
          ...env,
        }),
      );
      return {
        process: own,
        close: async () => {
          await own.stop('SIGKILL');
          rmSync(ownDir, { recursive: true, force: true });
        },
      };
    };

    afterAll(async () => {
      await executor?.stop('SIGKILL');
      await engine?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const failWithOutput = async <T>(what: Promise<T>): Promise<T> => {
      try {
        return await what;
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- executor output ---\n${executor.output()}`);
      }
    };

    /** What the executor knows of a run (the protocol's signed status query): [] if it never took it. */
    const attemptsOf = async (runId: number, url = executor.url) => (await engine.status(url, runId)).body.attempts as Array<{ attempt: number; state: string; outcome?: string }>;
    /** Waits until the executor says an attempt of the run is in the given state. */
    const untilState = (runId: number, state: string, url = executor.url) =>
      failWithOutput(
        vi.waitFor(async () => {
          const attempts = await attemptsOf(runId, url);
          if (!attempts.some((a) => a.state === state)) throw new Error(`run ${runId}: ${JSON.stringify(attempts)}, not ${state}`);
          return attempts;
        }, { timeout: 10_000, interval: 20 }),
      );

    it('registers with a signed heartbeat describing itself, and follows the ack interval', async () => {
      const first = await failWithOutput(engine.waitFor(() => engine.heartbeats.find((h) => h.body.url === executor.url), 'a heartbeat'));
      expect(first.signature).toEqual({ ok: true });
      expect(first.headers[SIGNATURE_HEADERS.tenant]).toBe(engine.tenantId);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ tenantId: engine.tenantId, app: 'conformance', url: executor.url, capacity: CONCURRENCY, inFlight: expect.any(Number) });
      expect(first.body.handlers).toEqual(expect.arrayContaining([ok.handler, sleep.handler, fail.handler]));
      // Its sleep handler declares a JSON schema of its params (the console checks tasks against it).
      expect(first.body.handlerSchemas?.[sleep.handler]).toMatchObject({ type: 'object', properties: { ms: { type: 'integer' } } });
      // The ack said 200 ms (configured: 2000 ms): the executor's next heartbeats follow the ack.
      // Their median gap is checked against the configured 2000 ms, not the 200 ms (a loaded machine stretches gaps).
      const since = engine.heartbeats.indexOf(first);
      const mine = () => engine.heartbeats.slice(since).filter((h) => h.body.url === executor.url);
      await failWithOutput(engine.waitFor(() => mine().length >= 6, 'heartbeats at the acked 200 ms interval'));
      const gaps = mine().slice(1, 6).map((h, i) => h.at - mine()[i].at).sort((a, b) => a - b);
      expect(gaps[2], `gaps ${gaps.join(', ')} ms`).toBeLessThan(1000);
      expect(engine.heartbeats.filter((h) => h.body.url === executor.url).every((h) => h.signature.ok)).toBe(true);
    });

    it('answers a dispatch with 202 at once and calls back, signed, with the outcome and timings', async () => {
      const before = Date.now();
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      const answer = await engine.dispatch(executor.url, req);
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ accepted: true, runId: req.runId, attempt: 1 });
      const cb = await failWithOutput(engine.finalCallback(req.runId, 1));
      expect(cb.signature).toEqual({ ok: true });
      expect(cb.path).toBe(PATHS.callback);
      expect(cb.body).toMatchObject({ runId: req.runId, attempt: 1, tenantId: engine.tenantId, outcome: 'SUCCEEDED' });
      expect(cb.body.startedAt).toEqual(expect.any(Number));
      expect(cb.body.finishedAt).toEqual(expect.any(Number));
      expect(cb.body.startedAt!).toBeGreaterThanOrEqual(before - 1000);
      expect(cb.body.finishedAt!).toBeGreaterThanOrEqual(cb.body.startedAt!);
    });

    it('protocol 2 (when its heartbeat says so): holds a run sent ahead (startInMs) until then, as a queued one, and refuses a bad startInMs naming it', async () => {
      const said = engine.heartbeats.find((h) => h.body.url === executor.url)?.body.protocolVersion ?? 1;
      if (said < 2) return; // protocol 1: engines never send it startInMs
      const HOLD_MS = 2_000;
      const sentAt = Date.now();
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never, startInMs: HOLD_MS });
      const answer = await engine.dispatch(executor.url, req);
      expect(answer.status).toBe(202);
      const status = await engine.send(executor.url, 'GET', PATHS.status(req.runId), undefined);
      const answeredAt = Date.now();
      // Acked before its start, and held as a queued run until then (as long as "then" had not come when the status was asked).
      const cb = (await failWithOutput(engine.finalCallback(req.runId, 1))).body;
      expect(cb.outcome).toBe('SUCCEEDED');
      expect(cb.startedAt! - sentAt).toBeGreaterThanOrEqual(HOLD_MS);
      if (answeredAt < sentAt + HOLD_MS) expect(status.body).toMatchObject({ attempts: [{ attempt: 1, state: 'QUEUED' }] });
      const bad = await engine.dispatch(executor.url, { ...engine.request({ handler: ok.handler }), startInMs: -5 } as never);
      expect(bad).toMatchObject({ status: 400, body: { field: 'startInMs' } });
    });

    it("protocol 3 (when its heartbeat says so): lets a run sent ahead go unstarted (ABORTED NO_CONTACT) when no heartbeat was answered within 2 × intervalMs before its instant, or when an ack's handBacks changes", async () => {
      const said = engine.heartbeats.find((h) => h.body.url === executor.url)?.body.protocolVersion ?? 1;
      if (said < 3) return; // protocol 2 or older: engines hand back nothing it held
      const params = (ok.params ?? null) as never;
      // Cut off from the engines: its heartbeats fail, and the lease (2 × the acked 200 ms) runs out long before the instant.
      engine.failHeartbeats(1_000_000);
      try {
        const cut = engine.request({ handler: ok.handler, params, startInMs: 1_500 });
        expect((await engine.dispatch(executor.url, cut)).status).toBe(202);
        const cb = (await failWithOutput(engine.finalCallback(cut.runId, 1))).body;
        expect(cb).toMatchObject({ outcome: 'ABORTED', abortReason: 'NO_CONTACT' });
        expect(cb.startedAt).toBeUndefined();
      } finally {
        engine.failHeartbeats(0);
      }
      // Heard again; then the engines hand back what it held (a later ack's handBacks differs): it lets go of a run due in 10 s at once.
      const since = engine.heartbeats.length;
      await failWithOutput(engine.waitFor(() => engine.heartbeats.slice(since).find((h) => h.body.url === executor.url && h.status === 200), 'an answered heartbeat'));
      const held = engine.request({ handler: ok.handler, params, startInMs: 10_000 });
      const sentAt = Date.now();
      expect((await engine.dispatch(executor.url, held)).status).toBe(202);
      engine.handBacks = (engine.handBacks ?? 0) + 1;
      const dropped = (await failWithOutput(engine.finalCallback(held.runId, 1))).body;
      expect(dropped).toMatchObject({ outcome: 'ABORTED', abortReason: 'NO_CONTACT' });
      expect(dropped.startedAt).toBeUndefined();
      expect(dropped.finishedAt!).toBeLessThan(sentAt + 9_000); // when the ack came, not at its instant
    });

    it('acks long work at once (the slot is free long before the work ends) and reports its duration', async () => {
      const req = engine.request({ handler: sleep.handler, params: sleep.params(800) as never });
      const answer = await engine.dispatch(executor.url, req);
      const answeredAt = Date.now();
      expect(answer.status).toBe(202);
      const cb = (await failWithOutput(engine.finalCallback(req.runId, 1))).body;
      expect(cb.outcome).toBe('SUCCEEDED');
      expect(answeredAt, 'the 202 came before the work ended').toBeLessThan(cb.finishedAt!);
      expect(cb.finishedAt! - cb.startedAt!).toBeGreaterThanOrEqual(750);
    });

    it("sends the run's trace back with its outcome (traceparent of the same trace), and runs a request whose traceparent is malformed, untraced", async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const traced = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never, traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
      const malformed = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never, traceparent: '00-not-a-trace-01' });
      expect((await engine.dispatch(executor.url, traced)).status).toBe(202);
      expect((await engine.dispatch(executor.url, malformed)).status).toBe(202);
      const tracedCb = (await failWithOutput(engine.finalCallback(traced.runId, 1))).body;
      expect(tracedCb).toMatchObject({ outcome: 'SUCCEEDED', traceparent: expect.stringMatching(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`)) });
      const malformedCb = (await failWithOutput(engine.finalCallback(malformed.runId, 1))).body;
      expect(malformedCb.outcome).toBe('SUCCEEDED');
      expect(malformedCb.traceparent).toBeUndefined();
    });

    it('reports a failing handler as FAILED with an error', async () => {
      const req = engine.request({ handler: fail.handler, params: (fail.params ?? null) as never });
      expect((await engine.dispatch(executor.url, req)).status).toBe(202);
      const cb = (await failWithOutput(engine.finalCallback(req.runId, 1))).body;
      expect(cb.outcome).toBe('FAILED');
      expect(typeof cb.error).toBe('string');
      expect(cb.error!.length).toBeGreaterThan(0);
      expect(cb.retryable).not.toBe(false); // the task's retry policy decides
    });

    it('reports a NonRetryableError as FAILED with retryable: false', async () => {
      const req = engine.request({ handler: failNonRetryable.handler, params: (failNonRetryable.params ?? null) as never });
      expect((await engine.dispatch(executor.url, req)).status).toBe(202);
      const cb = (await failWithOutput(engine.finalCallback(req.runId, 1))).body;
      expect(cb).toMatchObject({ outcome: 'FAILED', retryable: false, error: expect.stringMatching(/NonRetryable(Error|Exception)/) });
    });

    it('refuses an unknown handler (404 UNKNOWN_HANDLER) and a bad body (400 naming the field)', async () => {
      const unknown = await engine.dispatch(executor.url, engine.request({ handler: 'no-such-handler' }));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ accepted: false, reason: 'UNKNOWN_HANDLER' });
      const bad = await engine.dispatch(executor.url, { ...engine.request(), runId: 'seven' } as never);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ accepted: false, reason: 'BAD_REQUEST', field: 'runId' });
      const malformed = await engine.send(executor.url, 'POST', PATHS.dispatch, undefined, { rawBody: '{"runId":' });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ reason: 'BAD_REQUEST', field: 'body' });
    });

    it('hands a shard its shardIndex and shardTotal (0 of 1 when not a shard), and refuses a shard field without the other or out of range', async () => {
      const { shard } = target.handlers;
      const asShard = engine.request({ handler: shard.handler, shardIndex: 2, shardTotal: 3 });
      expect((await engine.dispatch(executor.url, asShard)).status).toBe(202);
      expect((await failWithOutput(engine.finalCallback(asShard.runId, 1))).body).toMatchObject({ outcome: 'SUCCEEDED', result: { shardIndex: 2, shardTotal: 3 } });
      const single = engine.request({ handler: shard.handler });
      expect((await engine.dispatch(executor.url, single)).status).toBe(202);
      expect((await failWithOutput(engine.finalCallback(single.runId, 1))).body).toMatchObject({ outcome: 'SUCCEEDED', result: { shardIndex: 0, shardTotal: 1 } });
      for (const [fields, field] of [
        [{ shardIndex: 1 }, 'shardTotal'],
        [{ shardIndex: 3, shardTotal: 3 }, 'shardIndex'],
        [{ shardIndex: -1, shardTotal: 3 }, 'shardIndex'],
        [{ shardIndex: 0, shardTotal: 0 }, 'shardTotal'],
      ] as const) {
        const bad = await engine.dispatch(executor.url, { ...engine.request({ handler: shard.handler }), ...fields } as never);
        expect(bad.status, JSON.stringify(fields)).toBe(400);
        expect(bad.body).toMatchObject({ accepted: false, reason: 'BAD_REQUEST', field });
      }
    });

    it("sends a running handler's log lines before it ends (the console's live tail), each line once", async () => {
      const { logSteps } = target.handlers;
      const req = engine.request({ handler: logSteps.handler, params: logSteps.params(3_000) as never });
      expect((await engine.dispatch(executor.url, req)).status).toBe(202);
      const final = await failWithOutput(engine.finalCallback(req.runId, 1));
      const interim = engine.callbacks.filter((c) => c.body.runId === req.runId && !c.body.outcome && c.status === 200 && c.body.logs?.length);
      expect(interim.length, 'interim callbacks with log lines').toBeGreaterThan(0);
      expect(interim[0].at).toBeLessThan(final.at);
      const logs = [...interim.flatMap((c) => c.body.logs ?? []), ...(final.body.logs ?? [])];
      // The protocol's LogLevel, as spelt: an engine stores another level as info.
      expect(logs.map((l) => l.level).filter((level) => !['debug', 'info', 'warn', 'error'].includes(level)), 'levels not of the protocol').toEqual([]);
      const lines = logs.map((l) => l.message);
      expect(lines.length).toBeGreaterThanOrEqual(10);
      expect(new Set(lines).size).toBe(lines.length);
      if (logSteps.reportsProgress) {
        // Progress goes live with the interim callbacks (the console's bar), never backwards, and ends at 100.
        const progress = engine.callbacks
          .filter((c) => c.body.runId === req.runId && !c.body.outcome && c.status === 200)
          .map((c) => c.body.progress)
          .filter((p): p is number => typeof p === 'number');
        expect(progress.length, 'interim callbacks with progress').toBeGreaterThan(0);
        expect(progress.every((p, i) => p > 0 && p <= 100 && (i === 0 || p >= progress[i - 1]))).toBe(true);
        expect(final.body.progress).toBe(100);
      }
    });

    it('refuses forged, unsigned, stale and tampered requests with 401 and runs nothing', async () => {
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      const forged = await engine.dispatch(executor.url, req, { secret: 'not-the-secret' });
      const unsigned = await engine.dispatch(executor.url, req, { sign: false });
      const stale = await engine.dispatch(executor.url, req, { timestamp: Date.now() - 10 * 60_000 });
      const otherTenant = await engine.dispatch(executor.url, req, { tenant: 'someone-else' });
      const body = JSON.stringify(req);
      const headers = { ...sign(engine.secret, engine.tenantId, 'POST', PATHS.dispatch, body, Date.now()), 'content-type': 'application/json' };
      const tampered = await fetch(executor.url + PATHS.dispatch, { method: 'POST', headers, body: body.replace(`"runId":${req.runId}`, `"runId":${req.runId + 100_000}`) });
      expect([forged.status, unsigned.status, stale.status, otherTenant.status, tampered.status]).toEqual([401, 401, 401, 401, 401]);
      expect(forged.body).toMatchObject({ accepted: false, reason: 'UNAUTHORIZED' });
      const forgedAbort = await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' }, { secret: 'not-the-secret' });
      expect(forgedAbort.status).toBe(401);
      // The executor never took either run (its status query says so), so no callback can come.
      expect(await attemptsOf(req.runId)).toEqual([]);
      expect(await attemptsOf(req.runId + 100_000)).toEqual([]);
      expect(engine.callbacks.filter((c) => c.body.runId === req.runId || c.body.runId === req.runId + 100_000)).toEqual([]);
    });

    it("answers another tenant's request, signed with that tenant's secret, that it serves another tenant (field x-baton-tenant), not that the signature does not match; runs nothing", async () => {
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      const globex = { tenant: 'globex', secret: 'globex-secret' };
      const answers = [await engine.dispatch(executor.url, req, globex), await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' }, globex)];
      for (const answer of answers) expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: TENANT_MISMATCH_REFUSAL });
      expect(await attemptsOf(req.runId)).toEqual([]);
      expect(engine.callbacks.filter((c) => c.body.runId === req.runId)).toEqual([]);
    });

    it('refuses a valid signature re-spelt (upper case, mixed case, extra characters) with 401 and runs nothing', async () => {
      const respellings = [(s: string) => s.toUpperCase(), (s: string) => s.replace(/[a-f]/, (c) => c.toUpperCase()), (s: string) => `${s}0`, (s: string) => `${s}zz`];
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      const answers = [];
      for (const respell of respellings) answers.push((await engine.dispatch(executor.url, req, { respell })).status);
      answers.push((await engine.abort(executor.url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' }, { respell: (s) => s.toUpperCase() })).status);
      answers.push((await engine.status(executor.url, req.runId, { respell: (s) => `${s}00` })).status);
      expect(answers).toEqual([401, 401, 401, 401, 401, 401]);
      expect(await attemptsOf(req.runId)).toEqual([]);
      expect(engine.callbacks.filter((c) => c.body.runId === req.runId)).toEqual([]);
    });

    it('runs a repeated dispatch of the same attempt once', async () => {
      const req = engine.request({ handler: sleep.handler, params: sleep.params(200) as never });
      const answers = [await engine.dispatch(executor.url, req), await engine.dispatch(executor.url, req)];
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      await failWithOutput(engine.finalCallback(req.runId, 1));
      expect((await engine.dispatch(executor.url, req)).status).toBe(202); // recently finished
      // One attempt, finished, and nothing running again: no second final callback can come.
      expect(await attemptsOf(req.runId)).toEqual([expect.objectContaining({ attempt: 1, state: 'FINISHED', outcome: 'SUCCEEDED' })]);
      expect(engine.callbacks.filter((c) => c.body.runId === req.runId && c.body.outcome)).toHaveLength(1);
    });

    it('answers 429 BUSY when its pool and queue are full; an abort stops a running run (ABORTED) and drops a queued one', async () => {
      const reqs = Array.from({ length: CONCURRENCY + QUEUE_LIMIT }, () => engine.request({ handler: sleep.handler, params: sleep.params(20_000) as never }));
      // Each 202 says how many more it would take now (credit): down to 0 when pool and queue are full.
      const credits: unknown[] = [];
      for (const r of reqs) {
        const answer = await engine.dispatch(executor.url, r);
        expect(answer.status).toBe(202);
        credits.push(answer.body.credit);
      }
      expect(credits.at(-1)).toBe(0);
      expect(credits[0]).toBeGreaterThanOrEqual(CONCURRENCY + QUEUE_LIMIT - 2); // the first may already run or not
      expect(credits.every((c, i) => typeof c === 'number' && (i === 0 || c <= (credits[i - 1] as number)))).toBe(true);
      expect((await engine.dispatch(executor.url, reqs[0])).body.credit).toBe(0); // a repeat says so too
      const busy = await engine.dispatch(executor.url, engine.request({ handler: sleep.handler, params: sleep.params(10) as never }));
      expect(busy.status).toBe(429);
      expect(busy.body).toMatchObject({ accepted: false, reason: 'BUSY' });
      await untilState(reqs[0].runId, 'RUNNING'); // a running one and a queued one to abort
      for (const r of reqs) {
        const answer = await engine.abort(executor.url, { runId: r.runId, attempt: 1, reason: 'CANCELLED' });
        expect(answer.status).toBe(202);
        expect(answer.body).toMatchObject({ aborted: true, runId: r.runId, attempt: 1 });
      }
      for (const r of reqs) {
        const cb = (await failWithOutput(engine.finalCallback(r.runId, 1))).body;
        expect(cb.outcome).toBe('ABORTED');
        expect(cb.abortReason).toBe('CANCELLED');
        // Stopped, not run to its 20 s end (the wait above is shorter than that).
        if (cb.startedAt !== undefined) expect(cb.finishedAt! - cb.startedAt).toBeLessThan(20_000);
      }
      const unknown = await engine.abort(executor.url, { runId: 987_654_321, attempt: 1, reason: 'TIMEOUT' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ aborted: false });
    });

    it('takes several runs in one batch: each judged as a single dispatch would be, in order, a repeat run once', async () => {
      const good = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      const unknown = engine.request({ handler: 'no-such-handler' });
      const malformed = { ...engine.request({ handler: ok.handler }), deadline: 'soon' };
      const answer = await engine.dispatchBatch(executor.url, [good, unknown, malformed, good]);
      expect(answer.status).toBe(200);
      const results = answer.body.results as Array<{ runId: number; attempt: number; status: number; body: Record<string, unknown> }>;
      expect(results.map((r) => [r.runId, r.attempt, r.status])).toEqual([
        [good.runId, 1, 202],
        [unknown.runId, 1, 404],
        [malformed.runId, 1, 400],
        [good.runId, 1, 202],
      ]);
      expect(results[0].body).toMatchObject({ accepted: true, runId: good.runId, attempt: 1, credit: expect.any(Number) });
      expect(results[1].body).toMatchObject({ accepted: false, reason: 'UNKNOWN_HANDLER', field: 'runs[1].handler' });
      expect(results[2].body).toMatchObject({ accepted: false, reason: 'BAD_REQUEST', field: 'runs[2].deadline' });
      await failWithOutput(engine.finalCallback(good.runId, 1));
      expect(await attemptsOf(good.runId)).toEqual([expect.objectContaining({ attempt: 1, state: 'FINISHED' })]);
      expect(await attemptsOf(unknown.runId)).toEqual([]);
      expect(engine.finalsFor(good.runId)).toHaveLength(1);
      expect(engine.finalsFor(unknown.runId)).toHaveLength(0);
    });

    it('refuses a batch that is not one (400 naming runs) or not signed (401), and runs nothing of it', async () => {
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      for (const body of [{}, { runs: [] }, { runs: 'x' }, { runs: Array.from({ length: 101 }, () => req) }]) {
        const answer = await engine.send(executor.url, 'POST', '/baton/runs/batch', body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ accepted: false, reason: 'BAD_REQUEST', field: 'runs' });
      }
      expect((await engine.dispatchBatch(executor.url, [req], { secret: 'wrong-secret' })).status).toBe(401);
      expect((await engine.dispatchBatch(executor.url, [req], { respell: (s) => s.toUpperCase() })).status).toBe(401);
      expect(await attemptsOf(req.runId)).toEqual([]);
      expect(engine.finalsFor(req.runId)).toHaveLength(0);
    });

    it('aborts a run at its deadline: its arrival + deadlineInMs on its own clock, or `deadline` without it; refuses a bad deadlineInMs naming it', async () => {
      // Both at once (two workers). `ahead` is as an engine sends it to an executor whose clock is a
      // minute ahead of the engine's: by this clock its `deadline` has passed, its deadlineInMs has not.
      // 2 s: room for a loaded machine to start the handler after the arrival (the check is that it started).
      const sentAt = Date.now();
      const ahead = engine.request({ handler: sleep.handler, params: sleep.params(20_000) as never, deadline: sentAt - 60_000 + 2_000, deadlineInMs: 2_000 });
      const plain = engine.request({ handler: sleep.handler, params: sleep.params(20_000) as never, deadline: sentAt + 2_000 });
      const answers = await Promise.all([ahead, plain].map((req) => engine.dispatch(executor.url, req)));
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      const [fromArrival, fromDeadline] = await Promise.all([ahead, plain].map(async (req) => (await failWithOutput(engine.finalCallback(req.runId, 1))).body));
      expect(fromArrival).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE', startedAt: expect.any(Number) });
      expect(fromArrival.error).not.toMatch(/before/); // it ran: not judged by `deadline` on this clock
      expect(fromArrival.finishedAt!).toBeGreaterThanOrEqual(sentAt + 2_000 - 50);
      expect(fromDeadline).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE' });
      expect(fromDeadline.finishedAt!).toBeGreaterThanOrEqual(plain.deadline - 50);
      for (const deadlineInMs of [-1, '400', true]) {
        const bad = await engine.dispatch(executor.url, { ...engine.request({ handler: ok.handler }), deadlineInMs } as never);
        expect(bad.status, JSON.stringify(deadlineInMs)).toBe(400);
        expect(bad.body).toMatchObject({ accepted: false, reason: 'BAD_REQUEST', field: 'deadlineInMs' });
      }
    });

    it('answers a status query for a run', async () => {
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      await engine.dispatch(executor.url, req);
      await failWithOutput(engine.finalCallback(req.runId, 1));
      const status = await engine.status(executor.url, req.runId);
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ runId: req.runId, attempts: [{ attempt: 1, state: 'FINISHED', outcome: 'SUCCEEDED' }] });
      expect((await engine.status(executor.url, req.runId, { secret: 'nope' })).status).toBe(401);
    });

    it('retries a callback until the engine takes it', async () => {
      engine.failCallbacks(2, 503);
      const req = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      await engine.dispatch(executor.url, req);
      await failWithOutput(engine.finalCallback(req.runId, 1));
      expect(engine.callbacks.filter((c) => c.body.runId === req.runId).map((c) => c.status)).toEqual([503, 503, 200]);
    });

    it("keeps a callback refused with 429 (an engine's tenant admission) and sends it again after its Retry-After, though another callback is taken meanwhile", async () => {
      engine.failCallbacks(1, 429, 1);
      const first = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      await engine.dispatch(executor.url, first);
      await failWithOutput(engine.waitFor(() => engine.callbacks.find((c) => c.body.runId === first.runId), 'the refused callback'));
      // Taken at once: a success, which wakes the callbacks in backoff — not one told when to come back.
      const second = engine.request({ handler: ok.handler, params: (ok.params ?? null) as never });
      await engine.dispatch(executor.url, second);
      await failWithOutput(engine.finalCallback(second.runId, 1));
      await failWithOutput(engine.finalCallback(first.runId, 1));
      const tries = engine.callbacks.filter((c) => c.body.runId === first.runId && c.body.outcome);
      expect(tries.map((c) => c.status)).toEqual([429, 200]);
      expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(990);
    });

    it('on SIGTERM: refuses new work with 503, finishes the running run, calls back, says it is draining, exits 0', async () => {
      const own = await startOwn('conformance-drain', { BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '20000' });
      const stopping = own.process;
      try {
        const req = engine.request({ handler: sleep.handler, params: sleep.params(3_000) as never });
        expect((await engine.dispatch(stopping.url, req)).status).toBe(202);
        await untilState(req.runId, 'RUNNING', stopping.url);
        const heartbeatsBefore = engine.heartbeats.length;
        stopping.child.kill('SIGTERM');
        // The signal is handled when its health says so (the protocol's unsigned GET /baton/health).
        await failWithOutput(
          vi.waitFor(async () => expect(await (await fetch(`${stopping.url.replace(/\/+$/, '')}/baton/health`)).json()).toMatchObject({ status: 'DRAINING' }), { timeout: 10_000, interval: 20 }),
        );
        const refused = await engine.dispatch(stopping.url, engine.request({ handler: ok.handler, params: (ok.params ?? null) as never }));
        expect(refused.status).toBe(503);
        expect(refused.body).toMatchObject({ accepted: false, reason: 'SHUTTING_DOWN' });
        const code = await stopping.exited;
        expect(code).toBe(0);
        expect(engine.finalsFor(req.runId)).toEqual([expect.objectContaining({ outcome: 'SUCCEEDED' })]);
        expect(engine.heartbeats.slice(heartbeatsBefore).some((h) => h.body.url === stopping.url && h.body.draining === true)).toBe(true);
      } finally {
        await own.close();
      }
    });

    it('an idle executor stopped by SIGTERM says draining, nothing in flight, and never signs two heartbeats alike (the engine refuses a repeat as a replay)', async () => {
      const own = await startOwn('conformance-idle');
      const idle = own.process;
      try {
        expect(await idle.stop('SIGTERM')).toBe(0);
        const mine = engine.heartbeats.filter((h) => h.body.url === idle.url);
        const signatures = mine.map((h) => String(h.headers['x-baton-signature']));
        expect(new Set(signatures).size).toBe(signatures.length);
        expect(mine[mine.length - 1].body).toMatchObject({ draining: true, inFlight: 0 });
        expect(engine.unauthorized.filter((u) => (u.body as { url?: string } | null)?.url === idle.url)).toEqual([]);
      } finally {
        await own.close();
      }
    });
  });
}
