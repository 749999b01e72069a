import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { isSampled, startFirstSpan, startRunSpan, traceparentOf } from '@baton/tracing';
import type { ClaimedRun } from '../common/claimed-run';

/**
 * The engine's spans of a run's life (docs/OPERATIONS.md, "Tracing"). Each is made only when
 * tracing is on: callers ask `tracingOn()` first, so the hot path pays one boolean read when off.
 * A run's spans hang under the context stored on its row (runs.trace_parent), so every attempt,
 * on whichever engine, joins the trace of the request or fire that made the run; a run whose
 * stored context is not sampled gets none (@baton/tracing's run-sampling).
 */

/** The planner's fire of a scheduled run: a root span, ended at once, when the sampler keeps it; what the run row keeps (its traceparent, or UNSAMPLED). */
export function fireTraceParent(run: { tenantId: string; taskId: number; scheduledAt: number }): string {
  const first = startFirstSpan('baton.run.fire', null, SpanKind.INTERNAL, () => ({
    attributes: { 'baton.tenant_id': run.tenantId, 'baton.task_id': run.taskId, 'baton.scheduled_at': run.scheduledAt },
  }));
  if (!first.span) return first.kept;
  first.span.end();
  return traceparentOf(first.span)!;
}

/**
 * One span per claimed run of a sampled trace, from the claim's start (`startedAt`, epoch ms)
 * until now. A run made without a decision (before tracing was on, or written by a process
 * without it: a null trace_parent) is sampled here: kept, its claim span roots a trace for this
 * node's steps of it; left out, no span. Either way the rest of the attempt reads the decision in
 * memory (run.traceParent).
 */
export function recordClaims(runs: readonly ClaimedRun[], startedAt: number, nodeId: string): void {
  for (const run of runs) {
    if (run.traceParent && !isSampled(run.traceParent)) continue;
    // Built only for a sampled run: most runs, at a low ratio, are decided without it.
    const options = () => ({ kind: SpanKind.INTERNAL, startTime: startedAt, attributes: runAttributes(run, { 'baton.engine.node_id': nodeId }) });
    if (run.traceParent) {
      startRunSpan('baton.run.claim', run.traceParent, options()).end();
      continue;
    }
    const first = startFirstSpan('baton.run.claim', null, SpanKind.INTERNAL, options);
    if (!first.span) {
      run.traceParent = first.kept;
      continue;
    }
    first.span.end();
    run.traceParent = traceparentOf(first.span);
  }
}

/** The dispatch of one attempt (CLIENT): its traceparent travels to the executor in the request. */
export function startDispatchSpan(run: ClaimedRun): Span {
  return startRunSpan('baton.run.dispatch', run.traceParent, { kind: SpanKind.CLIENT, attributes: runAttributes(run) });
}

/** Ends a dispatch span with its verdict (ACCEPTED by an executor, REFUSED by all asked, LOST). */
export function endDispatchSpan(span: Span, verdict: { kind: string; executorId?: number } | undefined): void {
  span.setAttribute('baton.dispatch.verdict', verdict?.kind ?? 'ERROR');
  if (verdict?.executorId !== undefined) span.setAttribute('baton.executor_id', verdict.executorId);
  if (verdict?.kind !== 'ACCEPTED') span.setStatus({ code: SpanStatusCode.ERROR, message: `dispatch ${verdict?.kind ?? 'failed'}` });
  span.end();
}

/** An outcome callback (SERVER), under the handler's span the executor sent (`traceparent`). */
export function startOutcomeSpan(cb: { runId: number; attempt: number; tenantId: string; outcome?: string; traceparent?: string }): Span {
  return startRunSpan('baton.run.outcome', cb.traceparent, {
    kind: SpanKind.SERVER,
    attributes: { 'baton.run_id': cb.runId, 'baton.attempt': cb.attempt, 'baton.tenant_id': cb.tenantId, 'baton.outcome': cb.outcome ?? 'NONE' },
  });
}

/** Ends an outcome span with the state the run went to (RETRY_WAIT: a retry, a later attempt of the same trace), or 409's reason. */
export function endOutcomeSpan(span: Span, state: string | null, refused?: string): void {
  if (state !== null) span.setAttribute('baton.run.state', state);
  if (refused) span.setAttribute('baton.callback.refused', refused);
  if (state === 'FAILED' || state === 'TIMED_OUT') span.setStatus({ code: SpanStatusCode.ERROR, message: `run ${state}` });
  span.end();
}

function runAttributes(run: ClaimedRun, more: Record<string, string | number> = {}): Record<string, string | number> {
  return { 'baton.run_id': run.runId, 'baton.attempt': run.attempt, 'baton.tenant_id': run.tenantId, 'baton.task_id': run.taskId, 'baton.handler': run.handler, ...more };
}
