import { trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchRequest } from '@baton/protocol';
import { flushSpans, RunTrace } from './run-trace';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const DISPATCH_SPAN = '00f067aa0ba902b7';

function request(traceparent?: string): DispatchRequest {
  return { runId: 7, attempt: 2, tenantId: 'acme', taskId: 3, taskName: 't', handler: 'h', params: null, scheduledAt: 1, deadline: 2, callbackUrls: [], ...(traceparent ? { traceparent } : {}) };
}

describe("RunTrace: a traced run's spans on the executor, with the application's tracer provider", () => {
  const exporter = new InMemorySpanExporter();
  // As an application batches its spans: they leave every minute here, or when flushed.
  const batched = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), new BatchSpanProcessor(batched, { scheduledDelayMillis: 60_000 })] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });

  it("nests business code's spans under the handler span, under the accept span, under the engine's dispatch span", async () => {
    exporter.reset();
    const run = RunTrace.accept(request(`00-${TRACE_ID}-${DISPATCH_SPAN}-01`))!;
    await run.runHandler(async () => {
      await new Promise((resolve) => setImmediate(resolve)); // the context survives an await
      trace.getTracer('business').startActiveSpan('charge-card', (span) => span.end());
    });
    run.end('FAILED', 'card declined\n  at stack');
    const spans = new Map(exporter.getFinishedSpans().map((s) => [s.name, s]));
    const accept = spans.get('baton.run.accept')!;
    const handler = spans.get('baton.run.handler')!;
    const business = spans.get('charge-card')!;
    for (const s of [accept, handler, business]) expect(s.spanContext().traceId).toBe(TRACE_ID);
    expect(accept.parentSpanContext?.spanId).toBe(DISPATCH_SPAN);
    expect(handler.parentSpanContext?.spanId).toBe(accept.spanContext().spanId);
    expect(business.parentSpanContext?.spanId).toBe(handler.spanContext().spanId);
    expect(handler.attributes).toMatchObject({ 'baton.run_id': 7, 'baton.attempt': 2, 'baton.outcome': 'FAILED' });
    expect(handler.status).toMatchObject({ message: 'card declined' });
    // The callback's traceparent is the handler span's: the engine's outcome span goes under it.
    expect(run.traceparent).toBe(`00-${TRACE_ID}-${handler.spanContext().spanId}-01`);
  });

  it("flushSpans sends what the application's provider still holds (runExecutor's stop, before the process exits)", async () => {
    const run = RunTrace.accept(request(`00-${TRACE_ID}-${DISPATCH_SPAN}-01`))!;
    await run.runHandler(async () => undefined);
    run.end('SUCCEEDED');
    const handlerSpanId = run.traceparent!.split('-')[2];
    const sent = () => batched.getFinishedSpans().some((s) => s.spanContext().spanId === handlerSpanId);
    expect(sent()).toBe(false);
    await flushSpans();
    expect(sent()).toBe(true);
  });

  it("makes no span and enters no context for a run left out of sampling (sampled=0), but passes the engine's context on", async () => {
    exporter.reset();
    const traceparent = `00-${TRACE_ID}-${DISPATCH_SPAN}-00`;
    const run = RunTrace.accept(request(traceparent))!;
    expect(run.sampled).toBe(false);
    const active = await run.runHandler(async () => trace.getActiveSpan());
    run.end('SUCCEEDED');
    expect(active).toBeUndefined();
    expect(run.traceparent).toBe(traceparent);
    expect(run.logFields()).toEqual({ trace_id: TRACE_ID, span_id: DISPATCH_SPAN });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('makes nothing for a request without a traceparent or with a malformed one', () => {
    exporter.reset();
    expect(RunTrace.accept(request())).toBeNull();
    expect(RunTrace.accept(request('00-not-a-trace-01'))).toBeNull();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
