import { ROOT_CONTEXT, trace, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { parseTraceparent } from './traceparent';

let on = false;

/** Set once by startTracing when a tracer provider is registered. */
export function markTracingOn(): void {
  on = true;
}

/** Whether spans are made: callers on the hot path skip all trace work when false (one boolean read). */
export function tracingOn(): boolean {
  return on;
}

/** The tracer of Baton's own spans (`baton.*`). */
export function batonTracer(): Tracer {
  return trace.getTracer('baton');
}

// W3C trace context, whatever OTEL_PROPAGATORS says: it is what the run row and the executor protocol carry.
const w3c = new W3CTraceContextPropagator();
const getter = { keys: (c: Record<string, string>) => Object.keys(c), get: (c: Record<string, string>, k: string) => c[k] };
const setter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };

/** The context whose remote parent is `traceparent` (a W3C header value); the root context when absent or malformed. */
export function contextOf(traceparent: string | null | undefined, base: Context = ROOT_CONTEXT): Context {
  if (!traceparent) return base;
  return w3c.extract(base, { traceparent }, getter);
}

/** The W3C `traceparent` of `span` (its trace, its id, its sampled flag). */
export function traceparentOf(span: Span): string | null {
  const carrier: Record<string, string> = {};
  w3c.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, setter);
  return carrier.traceparent ?? null;
}

/** Starts a span of Baton's tracer under `traceparent` (a run's stored context, a request's header). */
export function startRunSpan(name: string, traceparent: string | null | undefined, options: SpanOptions = {}): Span {
  return batonTracer().startSpan(name, options, contextOf(traceparent));
}

/**
 * `trace_id` and `span_id` of a run's trace context (runs.trace_parent, or a callback's
 * `traceparent`), for a log line about the run; none when untraced or UNSAMPLED — or when it is
 * not a W3C traceparent (a callback's is the executor's word: nothing else of it reaches a log line).
 */
export function traceFields(traceparent: unknown): { trace_id?: string; span_id?: string } {
  const ids = parseTraceparent(traceparent);
  return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/** `trace_id` and `span_id` of the active span, for a log line (pino's mixin); none when tracing is off or no span is active. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!on) return {};
  const span = trace.getActiveSpan()?.spanContext();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
