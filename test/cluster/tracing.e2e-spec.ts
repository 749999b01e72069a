import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, type RunState } from '@baton/domain';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { useCluster, waitFor } from './support/cluster';
import { addDependency, insertTask } from './support/seed';

/**
 * One trace per run across processes (issue 43): 2 engine processes on MariaDB and a demo
 * executor process export over OTLP/HTTP JSON to a receiver in this test. A scheduled fire A
 * (failing its first attempt) → its child B: the planner's fire span roots the trace, kept on the
 * run row; both attempts of A (whichever engine claims them) and B join it, with the executor's
 * accept and handler spans between each dispatch and its outcome. And the engines' log lines about
 * a run carry its trace id.
 */
describe('cluster: a scheduled run, its retry and its DAG child in one trace (2 engines, 1 executor)', () => {
  const ctx = useCluster('tracing');
  const receiver = new OtlpReceiver();
  beforeAll(async () => {
    const endpoint = await receiver.start();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };
    await ctx.cluster.startEngines(2, otel);
    await ctx.cluster.startExecutors(1, otel);
  }, 120_000);
  afterAll(() => receiver.stop());

  it("links fire → claim/dispatch → accept → handler → outcome across the processes, for every attempt and the child", async () => {
    const c = ctx.cluster;
    const at = Math.ceil((Date.now() + 2_500) / 1000) * 1000;
    const a = await insertTask(c.ds, c.tenant, {
      name: 'A',
      trigger: { kind: 'ONCE', at },
      handler: 'fail-n-times',
      params: { failures: 1 },
      retry: { maxAttempts: 2, backoffBaseMs: 300, backoffMaxMs: 1_000, jitter: 0 },
    });
    const b = await insertTask(c.ds, c.tenant, { name: 'B', trigger: { kind: 'MANUAL' }, handler: 'record' });
    await addDependency(c.ds, c.tenant, a, b);
    await waitFor(async () => (await c.runs([a, b])).filter((r) => isTerminal(r.state as RunState)).length === 2, { timeoutMs: 30_000, what: 'the runs of A and B ended' });
    const [runA, runB] = (await c.runs([a, b])).sort((x, y) => x.id - y.id);
    expect([runA.state, runA.attempt, runB.state]).toEqual(['SUCCEEDED', 2, 'SUCCEEDED']);

    // Each process exports on its own: wait for the engines' outcome spans and the executor's accept and handler spans of all three attempts.
    const has = (spans: readonly ReceivedSpan[], name: string, runId: number, attempt: number) => spans.some((s) => s.name === name && s.attributes['baton.run_id'] === runId && s.attributes['baton.attempt'] === attempt);
    const attempts: Array<[number, number]> = [[runA.id, 1], [runA.id, 2], [runB.id, 1]];
    await receiver.until((spans) => attempts.every(([id, n]) => ['baton.run.accept', 'baton.run.handler', 'baton.run.outcome'].every((name) => has(spans, name, id, n))));
    const fire = receiver.spans.find((s) => s.name === 'baton.run.fire' && s.attributes['baton.task_id'] === a)!;
    expect(fire).toMatchObject({ parentSpanId: '', service: 'baton-engine' });
    const trace = receiver.spans.filter((s) => s.traceId === fire.traceId);
    const one = (name: string, runId: number, attempt: number) => {
      const found = trace.filter((s) => s.name === name && s.attributes['baton.run_id'] === runId && s.attributes['baton.attempt'] === attempt);
      expect(found, `${name} of run ${runId} attempt ${attempt}`).toHaveLength(1);
      return found[0];
    };
    const attempt = (runId: number, n: number, contextSpanId: string, state: string) => {
      const dispatch = one('baton.run.dispatch', runId, n);
      const accept = one('baton.run.accept', runId, n);
      const handler = one('baton.run.handler', runId, n);
      const outcome = one('baton.run.outcome', runId, n);
      expect(dispatch.parentSpanId).toBe(contextSpanId);
      expect(trace.filter((s) => s.name === 'baton.run.claim' && s.attributes['baton.run_id'] === runId && s.attributes['baton.attempt'] === n).every((s) => s.parentSpanId === contextSpanId)).toBe(true);
      expect([accept.service, accept.parentSpanId]).toEqual(['baton-demo-executor', dispatch.spanId]);
      expect([handler.service, handler.parentSpanId]).toEqual(['baton-demo-executor', accept.spanId]);
      expect([outcome.service, outcome.parentSpanId, outcome.attributes['baton.run.state']]).toEqual(['baton-engine', handler.spanId, state]);
      return outcome;
    };
    attempt(runA.id, 1, fire.spanId, 'RETRY_WAIT');
    const endOfA = attempt(runA.id, 2, fire.spanId, 'SUCCEEDED');
    attempt(runB.id, 1, endOfA.spanId, 'SUCCEEDED');
  });

  it("gives the engines' log lines about a run its trace id (a fan-out run and its shards)", async () => {
    const c = ctx.cluster;
    const at = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const task = await insertTask(c.ds, c.tenant, { name: 'split', trigger: { kind: 'ONCE', at }, handler: 'shard-part', params: { items: 10 }, fanOut: { mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' } });
    const runs = await waitFor(async () => {
      const all = await c.runs([task]);
      return all.length === 3 && all.every((r) => isTerminal(r.state as RunState)) && all;
    }, { timeoutMs: 30_000, what: 'the fan-out run and its 2 shards ended' });
    const fanOut = runs.find((r) => r.cause !== 'SHARD')!;
    const traceId = fanOut.traceParent!.split('-')[1];
    expect(runs.map((r) => r.traceParent?.split('-')[1])).toEqual([traceId, traceId, traceId]);
    const ids = new Set(runs.map((r) => r.id));
    const lines = c.engines
      .flatMap((e) => readFileSync(e.logFile, 'utf8').split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; runId?: number; trace_id?: string })
      .filter((l) => l.runId !== undefined && ids.has(l.runId));
    expect(lines.map((l) => l.msg)).toContain(`run ${fanOut.id} fanned out into 2 shard(s) (SHARDED)`);
    for (const line of lines) expect(line, line.msg).toMatchObject({ trace_id: traceId, span_id: expect.stringMatching(/^[\da-f]{16}$/) });
  });
});
