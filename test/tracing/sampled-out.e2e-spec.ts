import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../cluster/support/cluster';
import { OtlpReceiver } from '../support/otlp-receiver';
import { startTracedEmbedded, type TracedEmbedded } from './support/traced-embedded';

/**
 * Sampling decided once, before a run's first span: with OTEL_TRACES_SAMPLER=parentbased_always_off
 * every trace Baton roots (a request without traceparent, a scheduled fire) is left out, and a
 * caller's sampled flag decides for its runs. A left-out run makes no span anywhere — console,
 * engine, executor — while a caller's unsampled context is kept and shown on the run page.
 */
describe('tracing: a run left out of sampling makes no span', () => {
  const receiver = new OtlpReceiver();
  let traced: TracedEmbedded;
  let baton: TracedEmbedded['baton'];
  let auth: TracedEmbedded['auth'];
  let task: number;

  beforeAll(async () => {
    traced = await startTracedEmbedded(receiver, { OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    ({ baton, auth } = traced);
    task = traced.taskIds.get('publish-report')!;
  });

  afterAll(() => traced?.close());

  const trigger = (traceparent?: string) => {
    const post = request(baton.url).post(`/api/tasks/${task}/trigger`).set(auth);
    return (traceparent ? post.set('traceparent', traceparent) : post).send({}).expect(201);
  };
  const ended = (runId: number) =>
    waitFor(async () => (await request(baton.url).get(`/api/runs/${runId}`).set(auth).expect(200)).body.state === 'SUCCEEDED', { timeoutMs: 20_000, what: `run ${runId} succeeded` });

  it("exports nothing of a run Baton roots or a caller left out, and keeps the caller's trace id on the run page", async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const unsampledCaller = `00-${callerTrace}-${randomBytes(8).toString('hex')}-00`;
    const rooted = (await trigger()).body;
    const passed = (await trigger(unsampledCaller)).body;
    expect([rooted.traceId, passed.traceId]).toEqual([null, callerTrace]);
    await ended(rooted.id);
    await ended(passed.id);

    // A sampled caller's run afterwards: its spans arrive after any the runs above could have made.
    const sampledTrace = randomBytes(16).toString('hex');
    const sampled = (await trigger(`00-${sampledTrace}-${randomBytes(8).toString('hex')}-01`)).body;
    await receiver.until((spans) => spans.some((s) => s.name === 'baton.run.outcome' && s.attributes['baton.run_id'] === sampled.id));
    expect(new Set(receiver.spans.map((s) => s.name))).toEqual(new Set(['baton.run.trigger', 'baton.run.claim', 'baton.run.dispatch', 'baton.run.accept', 'baton.run.handler', 'baton.run.outcome']));
    // Every span is the sampled run's: none of the left-out runs, none of the demo's scheduled fires.
    expect(receiver.spans.filter((s) => s.traceId !== sampledTrace)).toEqual([]);
    const page = await request(baton.url).get(`/api/runs/${passed.id}`).set(auth).expect(200);
    expect(page.body.traceId).toBe(callerTrace);
  });
});
