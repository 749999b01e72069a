import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { DispatchRequest } from '@baton/protocol';

// W3C trace context whatever the application's OTEL_PROPAGATORS: it is what the engine sends.
const w3c = new W3CTraceContextPropagator();
const getter = { keys: (c: Record<string, string>) => Object.keys(c), get: (c: Record<string, string>, k: string) => c[k] };
const setter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };

/**
 * A traced run's spans on this executor, made with the application's OpenTelemetry tracer
 * provider (`@opentelemetry/api`'s global one: none registered, they are not recorded, and the
 * engine's context still reaches the handler):
 * - `baton.run.accept` (SERVER): the dispatch taken, under the engine's dispatch span (the
 *   request's `traceparent`); ended as the 202 goes;
 * - `baton.run.handler` (INTERNAL): the handler's run, the active span inside it, so the spans
 *   business code makes nest under it; its traceparent goes back in the final callback.
 * Made only for a request that carries a traceparent with its sampled flag set: an untraced run
 * costs one check. A run the engines left out of sampling comes without one, or with a caller's
 * context (sampled=0), which is passed to the handler and named on log lines, but opens no span
 * and enters no context.
 */
export class RunTrace {
  private handlerSpan: Span | undefined;

  private constructor(
    private readonly request: DispatchRequest,
    private readonly accepted: Context,
    /** Whether the run's trace is sampled (spans made); false: a caller's context passed through. */
    readonly sampled: boolean,
  ) {}

  /** The accept span of `request`, ended now; null when the request carries no (valid) traceparent; no span when it is not sampled. */
  static accept(request: DispatchRequest): RunTrace | null {
    if (typeof request.traceparent !== 'string') return null;
    const remote = w3c.extract(ROOT_CONTEXT, { traceparent: request.traceparent }, getter);
    const parent = trace.getSpanContext(remote);
    if (!parent) return null;
    if ((parent.traceFlags & TraceFlags.SAMPLED) === 0) return new RunTrace(request, remote, false);
    const span = tracer().startSpan('baton.run.accept', { kind: SpanKind.SERVER, attributes: attributesOf(request) }, remote);
    span.end();
    return new RunTrace(request, trace.setSpan(remote, span), true);
  }

  /** Runs `fn` (the handler) inside its span, the active context; the span is ended by `end`. Not sampled: just `fn`. */
  runHandler<T>(fn: () => T): T {
    if (!this.sampled) return fn();
    this.handlerSpan = tracer().startSpan('baton.run.handler', { kind: SpanKind.INTERNAL, attributes: attributesOf(this.request) }, this.accepted);
    return context.with(trace.setSpan(this.accepted, this.handlerSpan), fn);
  }

  /** The W3C traceparent of the handler's span (the accept span's before it starts); not sampled: the engine's, as sent. */
  get traceparent(): string | undefined {
    if (!this.sampled) return this.request.traceparent;
    const carrier: Record<string, string> = {};
    w3c.inject(this.handlerSpan ? trace.setSpan(ROOT_CONTEXT, this.handlerSpan) : this.accepted, carrier, setter);
    return carrier.traceparent;
  }

  /** `trace_id` and `span_id` of the handler's span (the accept span's before it starts; not sampled: the engine's context), for a log line about the run. */
  logFields(): { trace_id: string; span_id: string } {
    const span = this.handlerSpan?.spanContext() ?? trace.getSpanContext(this.accepted)!;
    return { trace_id: span.traceId, span_id: span.spanId };
  }

  /** Ends the handler's span with the attempt's outcome (once; later calls do nothing). */
  end(outcome: 'SUCCEEDED' | 'FAILED' | 'ABORTED', error?: string): void {
    const span = this.handlerSpan;
    if (!span || !span.isRecording()) return;
    span.setAttribute('baton.outcome', outcome);
    if (outcome !== 'SUCCEEDED') span.setStatus({ code: SpanStatusCode.ERROR, message: error?.split('\n', 1)[0] ?? outcome });
    span.end();
  }
}

/**
 * Sends the spans the application's tracer provider still buffers (at most `timeoutMs`): the
 * graceful stop of runExecutor calls it before the process exits, so its last runs' spans leave.
 * Nothing to do without a provider that flushes.
 */
export async function flushSpans(timeoutMs = 2_000): Promise<void> {
  const registered = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const provider = (registered.getDelegate?.() ?? registered) as { forceFlush?: () => Promise<void> };
  if (typeof provider.forceFlush !== 'function') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([provider.forceFlush().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}

function tracer() {
  return trace.getTracer('@baton/executor-sdk');
}

function attributesOf(r: DispatchRequest) {
  return { 'baton.run_id': r.runId, 'baton.attempt': r.attempt, 'baton.tenant_id': r.tenantId, 'baton.task_id': r.taskId, 'baton.handler': r.handler };
}
