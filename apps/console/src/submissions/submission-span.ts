import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { startFirstSpan, traceparentOf, tracingOn } from '@baton/tracing';

/**
 * Runs `submit` inside the request's span when tracing is on and the sampler keeps the trace: the
 * span's parent is the caller's W3C `traceparent` header (a malformed or absent one starts a new
 * trace), and `submit` is given the span's own traceparent to store on the runs it writes
 * (runs.trace_parent), so their claim, dispatch, handler and outcome spans are its descendants.
 * Left out: no span, and the runs keep the caller's context with sampled=0 (or UNSAMPLED), so no
 * later step makes one. Off: `submit(undefined)`, nothing else.
 */
export async function submissionSpan<T>(
  name: string,
  traceparent: string | undefined,
  attributes: Attributes,
  submit: (traceParent: string | undefined) => Promise<T>,
  /** The run a single submission made, named on the span (`baton.run_id`). */
  runIdOf: (answer: T) => number | undefined = () => undefined,
): Promise<T> {
  if (!tracingOn()) return submit(undefined);
  const first = startFirstSpan(name, traceparent, SpanKind.SERVER, () => ({ attributes }));
  if (!first.span) return submit(first.kept);
  const span = first.span;
  try {
    const answer = await submit(traceparentOf(span) ?? undefined);
    const runId = runIdOf(answer);
    if (runId !== undefined) span.setAttribute('baton.run_id', runId);
    return answer;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
