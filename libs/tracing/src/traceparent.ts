/** A W3C traceparent of version 00: trace id, parent span id, flags (lowercase hex). */
const TRACEPARENT = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * The trace id, span id and sampled flag of a W3C traceparent (a run's stored context, a
 * request's header, a callback's word); null when absent, malformed, or the invalid all-zero
 * context (UNSAMPLED): nothing else of the value is ever used.
 */
export function parseTraceparent(traceparent: unknown): { traceId: string; spanId: string; sampled: boolean } | null {
  const ids = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!ids || ids[1] === ZERO_TRACE || ids[2] === ZERO_SPAN) return null;
  return { traceId: ids[1], spanId: ids[2], sampled: (parseInt(ids[3], 16) & 1) === 1 };
}
