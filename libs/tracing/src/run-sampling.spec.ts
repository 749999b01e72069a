import { SamplingDecision, SpanKind, trace, type Sampler } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, ParentBasedSampler, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DecidedTraceIds, forwardedTraceparent, isSampled, startFirstSpan, UNSAMPLED, useRunSampler } from './run-sampling';
import { traceFields } from './run-trace';
import { parseTraceparent } from './traceparent';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('a run is sampled once, before its first span', () => {
  // Roots are kept when their trace id starts with "aa" (a ratio sampler decides on the trace id
  // the same way); a caller's context decides for its children (parent-based, the default).
  const root: Sampler = {
    shouldSample: (_context, traceId) => ({ decision: traceId.startsWith('aa') ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD }),
    toString: () => 'aa-prefix',
  };
  const sampler = new ParentBasedSampler({ root });
  const queue: string[] = [];
  let spanIds = 0;
  const ids = new DecidedTraceIds({ generateTraceId: () => queue.shift()!, generateSpanId: () => (++spanIds).toString(16).padStart(16, '0') });
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ sampler, idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
    useRunSampler(sampler, ids);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });
  beforeEach(() => exporter.reset());

  const options = () => ({ attributes: { 'baton.run_id': 7 } });

  it('makes no span for a root the sampler leaves out: the run keeps UNSAMPLED', () => {
    queue.push('bb'.padEnd(32, '1'));
    let built = 0;
    const first = startFirstSpan('baton.run.fire', null, SpanKind.INTERNAL, () => (built++, options()));
    expect(first).toEqual({ span: null, kept: UNSAMPLED });
    expect(exporter.getFinishedSpans()).toEqual([]);
    // Decided before its attributes are built: a run left out builds none.
    expect(built).toBe(0);
  });

  it('starts a kept root with the trace id the sampler was asked about, and stages nothing for the next root', () => {
    const decided = 'aa'.padEnd(32, '2');
    queue.push(decided);
    const first = startFirstSpan('baton.run.fire', null, SpanKind.INTERNAL, options);
    first.span!.end();
    const [span] = exporter.getFinishedSpans();
    expect(span.spanContext()).toMatchObject({ traceId: decided, traceFlags: 1 });
    expect(span.attributes).toEqual({ 'baton.run_id': 7 });
    expect(span.parentSpanContext).toBeUndefined();
    // The next root draws a fresh id: the one decided was used once.
    queue.push('bb'.padEnd(32, '3'));
    expect(startFirstSpan('baton.run.fire', null, SpanKind.INTERNAL, options).span).toBeNull();
    expect(queue).toEqual([]);
  });

  it("follows a caller's sampled flag: sampled, a span under it; not sampled, no span and the caller's context kept with sampled=0", () => {
    const kept = startFirstSpan('baton.run.trigger', `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, SpanKind.INTERNAL, options);
    kept.span!.end();
    expect(exporter.getFinishedSpans().map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId])).toEqual([[CALLER_TRACE, CALLER_SPAN]]);
    exporter.reset();
    expect(startFirstSpan('baton.run.trigger', `00-${CALLER_TRACE}-${CALLER_SPAN}-00`, SpanKind.INTERNAL, options)).toEqual({ span: null, kept: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('reads the sampled flag of a stored context; UNSAMPLED and malformed values are neither sampled, forwarded nor named on a log line', () => {
    expect(isSampled(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`)).toBe(true);
    expect(isSampled(`00-${CALLER_TRACE}-${CALLER_SPAN}-03`)).toBe(true);
    for (const value of [`00-${CALLER_TRACE}-${CALLER_SPAN}-00`, UNSAMPLED, null, undefined, 'nonsense', `01-${CALLER_TRACE}-${CALLER_SPAN}-01`]) expect(isSampled(value), String(value)).toBe(false);
    expect(forwardedTraceparent(`00-${CALLER_TRACE}-${CALLER_SPAN}-00`)).toBe(`00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
    expect([forwardedTraceparent(UNSAMPLED), forwardedTraceparent(null), forwardedTraceparent('nonsense')]).toEqual([undefined, undefined, undefined]);
    expect(parseTraceparent(UNSAMPLED)).toBeNull();
    expect(traceFields(UNSAMPLED)).toEqual({});
  });
});
