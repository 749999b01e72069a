import { SamplingDecision, trace, type Sampler, type Span, type SpanKind, type SpanOptions } from '@opentelemetry/api';
import { batonTracer, contextOf } from './run-trace';
import { parseTraceparent } from './traceparent';

/**
 * The sampling of a run's trace, decided once, before its first span, and kept on the run row
 * (runs.trace_parent) with its W3C sampled flag: every later step (claim, dispatch, the executor's
 * spans, the outcome) reads the flag and, for a run left out, makes no span, formats no
 * traceparent and enters no context. At 1 % sampling that is what keeps tracing's cost per run
 * within the noise of tracing off.
 */

/**
 * What an unsampled run keeps when no caller sent a trace context: the W3C "invalid" context (all
 * zeros, not sampled). It says "decided: not traced" (a null column says "no decision yet": the
 * claim decides), is never sent to an executor, and names no trace on a log line or the run page.
 */
export const UNSAMPLED = '00-00000000000000000000000000000000-0000000000000000-00';

/** Whether a run's stored context (or a callback's) asks for spans: a valid traceparent with its sampled flag set. */
export function isSampled(traceparent: unknown): boolean {
  return parseTraceparent(traceparent)?.sampled === true;
}

/**
 * What an unsampled run sends its executor: the caller's context (sampled flag 0), as W3C asks
 * of a participant that records nothing; nothing for UNSAMPLED or an untraced run.
 */
export function forwardedTraceparent(traceparent: string | null | undefined): string | undefined {
  return traceparent && parseTraceparent(traceparent) ? traceparent : undefined;
}

/** The trace ids of Baton's tracer provider, random (IdGenerator of @opentelemetry/sdk-trace-base). */
export interface TraceIds {
  generateTraceId(): string;
  generateSpanId(): string;
}

/**
 * The provider's ids: random, except that the next root span's trace id is the one the sampler was
 * just asked about (startFirstSpan), so the span's own sampling (the same sampler, the same trace
 * id) agrees with the decision taken before it.
 */
export class DecidedTraceIds implements TraceIds {
  private next: string | undefined;

  constructor(private readonly random: TraceIds) {}

  /** The trace id of the root span started next (synchronously, by startFirstSpan). */
  decided(traceId: string): void {
    this.next = traceId;
  }

  generateTraceId(): string {
    const id = this.next ?? this.random.generateTraceId();
    this.next = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

let decider: { sampler: Sampler; ids: DecidedTraceIds } | undefined;

/** Set once by startTracing: the sampler and ids its tracer provider uses. */
export function useRunSampler(sampler: Sampler, ids: DecidedTraceIds): void {
  decider = { sampler, ids };
}

/** A run's first span, or, when its trace is left out, what the run keeps instead (runs.trace_parent). */
export type FirstSpan = { span: Span; kept?: undefined } | { span: null; kept: string };

/**
 * A run's first span (the planner's fire, the request that makes it, the claim of a run made
 * without a decision) under `parent` (a caller's traceparent, or none: a root), when the sampler
 * (OTEL_TRACES_SAMPLER) keeps the trace. Otherwise no span at all: the run keeps the caller's
 * context with sampled=0, or UNSAMPLED. Only when tracing is on (startTracing). The sampler is
 * asked before `options` (the span's attributes) are built, with none: the samplers
 * OTEL_TRACES_SAMPLER names read the parent and the trace id only, and a run left out (99 % at
 * 1 % sampling) builds nothing.
 */
export function startFirstSpan(name: string, parent: string | null | undefined, kind: SpanKind, options: () => SpanOptions): FirstSpan {
  const parentContext = contextOf(parent);
  const remote = trace.getSpanContext(parentContext);
  const { sampler, ids } = decider!;
  const traceId = remote?.traceId ?? ids.generateTraceId();
  const { decision } = sampler.shouldSample(parentContext, traceId, name, kind, {}, []);
  if (decision === SamplingDecision.NOT_RECORD) return { span: null, kept: remote ? `00-${remote.traceId}-${remote.spanId}-00` : UNSAMPLED };
  if (!remote) ids.decided(traceId);
  return { span: batonTracer().startSpan(name, { ...options(), kind }, parentContext) };
}
