/**
 * A run's attempt as XXL-JOB's `logId` (a Java long): `runId × 1000 + attempt`. The executor
 * names its log file by it and sends it back in the callback, so the callback says which attempt
 * of which run ended without a table of its own, and a late callback of an earlier attempt finds
 * that attempt over (409 inside, success to the executor). Attempts stay below 1000 (a task has at
 * most 100); run ids below 9 × 10¹² keep it exact in a JavaScript number.
 */
export const ATTEMPTS_PER_LOG_ID = 1000;

export function xxlLogIdOf(runId: number, attempt: number): number {
  return runId * ATTEMPTS_PER_LOG_ID + attempt;
}

/** The run and attempt of a logId Baton made; null for one it cannot have made. */
export function runOfXxlLogId(logId: unknown): { runId: number; attempt: number } | null {
  if (typeof logId !== 'number' || !Number.isSafeInteger(logId) || logId <= ATTEMPTS_PER_LOG_ID) return null;
  const attempt = logId % ATTEMPTS_PER_LOG_ID;
  if (attempt === 0) return null;
  return { runId: (logId - attempt) / ATTEMPTS_PER_LOG_ID, attempt };
}
