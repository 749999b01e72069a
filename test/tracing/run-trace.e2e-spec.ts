import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { startTracedEmbedded, type TracedEmbedded } from './support/traced-embedded';

/**
 * A run's life is one trace, checked as a collector receives it: the embedded mode (console,
 * engine and the SDK-built demo executor in one process) exporting over OTLP/HTTP JSON to an
 * in-test receiver, with the standard OTEL_* variables.
 */
describe('tracing: one trace per run, from the API call to the handler and back', () => {
  const receiver = new OtlpReceiver();
  let traced: TracedEmbedded;
  let baton: TracedEmbedded['baton'];
  let auth: TracedEmbedded['auth'];
  let taskIds: TracedEmbedded['taskIds'];

  beforeAll(async () => {
    traced = await startTracedEmbedded(receiver, { OTEL_SERVICE_NAME: 'baton-under-test', BATON_TRACE_URL_TEMPLATE: 'http://tracing.example/trace/{traceId}?from=baton' });
    ({ baton, auth, taskIds } = traced);
  });

  afterAll(() => traced?.close());

  /** A caller's own span context, as its HTTP client would send it. */
  function callerContext(): { traceId: string; spanId: string; traceparent: string } {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
  }

  const ofRun = (spans: readonly ReceivedSpan[], runId: number, name: string) => spans.filter((s) => s.name === name && s.attributes['baton.run_id'] === runId);
  const one = (spans: readonly ReceivedSpan[], runId: number, name: string, attempt?: number) => {
    const found = ofRun(spans, runId, name).filter((s) => attempt === undefined || s.attributes['baton.attempt'] === attempt);
    expect(found, `${name} of run ${runId}${attempt ? ` attempt ${attempt}` : ''}`).toHaveLength(1);
    return found[0];
  };

  /** The spans of one attempt: claim and dispatch under the run's context, accept → handler → outcome below the dispatch. */
  function expectAttempt(spans: readonly ReceivedSpan[], runId: number, attempt: number, runContextSpanId: string, state: string): ReceivedSpan {
    // A run claimed ahead of its instant may be given back and claimed again: each claim is a span.
    const claims = ofRun(spans, runId, 'baton.run.claim').filter((s) => s.attributes['baton.attempt'] === attempt);
    expect(claims.length, `claims of run ${runId} attempt ${attempt}`).toBeGreaterThan(0);
    const dispatch = one(spans, runId, 'baton.run.dispatch', attempt);
    const accept = one(spans, runId, 'baton.run.accept', attempt);
    const handler = one(spans, runId, 'baton.run.handler', attempt);
    const outcome = one(spans, runId, 'baton.run.outcome', attempt);
    for (const claim of claims) expect(claim.parentSpanId).toBe(runContextSpanId);
    expect(dispatch.parentSpanId).toBe(runContextSpanId);
    expect(dispatch.attributes['baton.dispatch.verdict']).toBe('ACCEPTED');
    expect(accept.parentSpanId).toBe(dispatch.spanId);
    expect(handler.parentSpanId).toBe(accept.spanId);
    expect(outcome.parentSpanId).toBe(handler.spanId);
    expect(outcome.attributes['baton.run.state']).toBe(state);
    return outcome;
  }

  it("joins the caller's trace: trigger → claim → dispatch → accept → handler → outcome, and the DAG child under the parent's outcome", async () => {
    const caller = callerContext();
    const triggered = await request(baton.url)
      .post(`/api/tasks/${taskIds.get('build-report')}/trigger`)
      .set(auth)
      .set('traceparent', caller.traceparent)
      .send({ params: { ms: 50 } })
      .expect(201);
    const runId: number = triggered.body.id;
    expect(triggered.body.traceId).toBe(caller.traceId);
    const childTask = taskIds.get('publish-report');
    await receiver.until((spans) => spans.some((s) => s.name === 'baton.run.outcome' && s.traceId === caller.traceId && s.attributes['baton.run_id'] !== runId));

    const trace = receiver.spans.filter((s) => s.traceId === caller.traceId);
    const trigger = trace.find((s) => s.name === 'baton.run.trigger')!;
    expect(trigger).toMatchObject({ parentSpanId: caller.spanId, service: 'baton-under-test', attributes: { 'baton.run_id': runId, 'baton.tenant_id': 'demo' } });
    const parentOutcome = expectAttempt(trace, runId, 1, trigger.spanId, 'SUCCEEDED');

    const childClaim = trace.find((s) => s.name === 'baton.run.claim' && s.attributes['baton.task_id'] === childTask)!;
    const childRunId = childClaim.attributes['baton.run_id'] as number;
    expect(childRunId).not.toBe(runId);
    expectAttempt(trace, childRunId, 1, parentOutcome.spanId, 'SUCCEEDED');
    // The run's page names its trace, and links to it in the operator's tracing UI.
    const page = await request(baton.url).get(`/api/runs/${runId}`).set(auth).expect(200);
    expect(page.body).toMatchObject({ traceId: caller.traceId, traceUrl: `http://tracing.example/trace/${caller.traceId}?from=baton` });
    // Nothing of these runs went to another trace.
    expect(receiver.spans.filter((s) => s.traceId !== caller.traceId && [runId, childRunId].includes(s.attributes['baton.run_id'] as number))).toEqual([]);
  });

  it('keeps a retried run in one trace: each attempt its own claim, dispatch, handler and outcome', async () => {
    const caller = callerContext();
    const triggered = await request(baton.url)
      .post(`/api/tasks/${taskIds.get('fails-when-run')}/trigger`)
      .set(auth)
      .set('traceparent', caller.traceparent)
      .send({ params: { failures: 1 } })
      .expect(201);
    const runId: number = triggered.body.id;
    await receiver.until((spans) => spans.some((s) => s.name === 'baton.run.outcome' && s.traceId === caller.traceId && s.attributes['baton.attempt'] === 2));
    const trace = receiver.spans.filter((s) => s.traceId === caller.traceId);
    const trigger = trace.find((s) => s.name === 'baton.run.trigger')!;
    expect(trigger.parentSpanId).toBe(caller.spanId);
    expectAttempt(trace, runId, 1, trigger.spanId, 'RETRY_WAIT');
    expectAttempt(trace, runId, 2, trigger.spanId, 'SUCCEEDED');
  });

  it("puts the runs of a batch submission in the caller's trace, under the request's span", async () => {
    const caller = callerContext();
    const task = taskIds.get('publish-report');
    const answer = await request(baton.url).post('/api/runs/batch').set(auth).set('traceparent', caller.traceparent).send({ runs: [{ taskId: task }, { taskId: task }] }).expect(200);
    const runIds: number[] = answer.body.results.map((r: { run: { id: number } }) => r.run.id);
    await receiver.until((spans) => runIds.every((id) => ofRun(spans, id, 'baton.run.outcome').length === 1));
    const batch = receiver.spans.find((s) => s.name === 'baton.runs.submit-batch' && s.traceId === caller.traceId)!;
    expect(batch).toMatchObject({ parentSpanId: caller.spanId, attributes: { 'baton.runs': 2 } });
    for (const id of runIds) expectAttempt(receiver.spans.filter((s) => s.traceId === caller.traceId), id, 1, batch.spanId, 'SUCCEEDED');
  });

  it("puts the runs of a batch of events in the caller's trace, under the request's span", async () => {
    const caller = callerContext();
    const like = (await request(baton.url).get(`/api/tasks/${taskIds.get('publish-report')}`).set(auth).expect(200)).body;
    await request(baton.url).post('/api/tasks').set(auth).send({ name: 'on-order-paid', executorApp: like.executorApp, handler: 'noop', trigger: { kind: 'EVENT', event: 'order.paid' } }).expect(201);
    const answer = await request(baton.url).post('/api/events').set(auth).set('traceparent', caller.traceparent).send({ events: [{ name: 'order.paid', payload: { n: 1 } }, { name: 'order.paid', payload: { n: 2 } }] }).expect(200);
    const runIds: number[] = answer.body.results.flatMap((r: { event: { runIds: number[] } }) => r.event.runIds);
    expect(runIds).toHaveLength(2);
    await receiver.until((spans) => runIds.every((id) => ofRun(spans, id, 'baton.run.outcome').length === 1));
    const batch = receiver.spans.find((s) => s.name === 'baton.events.emit-batch' && s.traceId === caller.traceId)!;
    expect(batch).toMatchObject({ parentSpanId: caller.spanId, attributes: { 'baton.events': 2 } });
    for (const id of runIds) expectAttempt(receiver.spans.filter((s) => s.traceId === caller.traceId), id, 1, batch.spanId, 'SUCCEEDED');
  });

  it('starts a trace of its own for a request without traceparent, and for each scheduled fire', async () => {
    const triggered = await request(baton.url).post(`/api/tasks/${taskIds.get('publish-report')}/trigger`).set(auth).send({}).expect(201);
    const runId: number = triggered.body.id;
    await receiver.until((spans) => ofRun(spans, runId, 'baton.run.outcome').length === 1);
    const trigger = receiver.spans.find((s) => s.name === 'baton.run.trigger' && s.attributes['baton.run_id'] === runId)!;
    expect(trigger.parentSpanId).toBe('');
    expect(triggered.body.traceId).toBe(trigger.traceId);
    expectAttempt(receiver.spans.filter((s) => s.traceId === trigger.traceId), runId, 1, trigger.spanId, 'SUCCEEDED');

    // The demo's fixed-rate task fired at start: its fire span is a root, its run's spans under it.
    await receiver.until((spans) => spans.some((s) => s.name === 'baton.run.fire' && spans.some((o) => o.name === 'baton.run.outcome' && o.traceId === s.traceId)));
    const fire = receiver.spans.find((s) => s.name === 'baton.run.fire' && receiver.spans.some((o) => o.name === 'baton.run.outcome' && o.traceId === s.traceId))!;
    expect(fire.parentSpanId).toBe('');
    const fired = receiver.spans.find((s) => s.name === 'baton.run.claim' && s.traceId === fire.traceId)!;
    expectAttempt(receiver.spans.filter((s) => s.traceId === fire.traceId), fired.attributes['baton.run_id'] as number, 1, fire.spanId, 'SUCCEEDED');
  });
});
