import { MAX_INTERVAL_MS, MIN_INTERVAL_MS } from '@baton/domain';

/**
 * Why an interval of the old scheduler has no Baton FIXED_RATE (null: it has one). Checked at
 * import, where the job is listed as not imported: written to the file, it would have the whole
 * file refused at plan and apply (all or nothing), every other job with it.
 */
export function intervalProblem(intervalMs: number): string | null {
  if (intervalMs < MIN_INTERVAL_MS) return `Baton's shortest interval is ${MIN_INTERVAL_MS} ms`;
  if (intervalMs > MAX_INTERVAL_MS) return `Baton's longest interval is ${MAX_INTERVAL_MS} ms (10 years)`;
  return null;
}
