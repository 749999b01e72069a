import type { RunEntity } from '@baton/persistence';
import type { InvocationRecord } from './cluster';

/** Figures the cluster tests print (console.log, so the lead can quote them); not asserted tightly. */

/** The p-th percentile (0–100) of `values`, nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** `{ a: 3, b: 5 }` of how many items fall in each group. */
export function countBy<T>(items: readonly T[], key: (item: T) => string | number | null | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = String(key(item) ?? 'none');
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

/** Lateness of each dispatched run: dispatched_at − scheduled_at (ms). */
export function lateness(runs: readonly RunEntity[]): number[] {
  return runs.filter((r) => r.dispatchedAt !== null).map((r) => r.dispatchedAt! - r.scheduledAt);
}

export function latenessSummary(values: readonly number[]): { n: number; p50: number; p90: number; p99: number; max: number } {
  return { n: values.length, p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), max: values.length ? Math.max(...values) : NaN };
}

/**
 * Handler invocations per (run id), from the executors' record files: the runs invoked more
 * than `expected(runId)` times (default once) and the runs never invoked.
 */
export function invocationCheck(
  records: readonly InvocationRecord[],
  runIds: readonly number[],
  expected: (runId: number) => number = () => 1,
): { perRun: Map<number, InvocationRecord[]>; duplicated: Array<{ runId: number; invocations: InvocationRecord[] }>; missing: number[]; foreign: number } {
  const perRun = new Map<number, InvocationRecord[]>();
  for (const r of records) perRun.set(r.runId, [...(perRun.get(r.runId) ?? []), r]);
  const wanted = new Set(runIds);
  const duplicated: Array<{ runId: number; invocations: InvocationRecord[] }> = [];
  const missing: number[] = [];
  for (const id of runIds) {
    const list = perRun.get(id) ?? [];
    if (list.length === 0) missing.push(id);
    else if (list.length > expected(id)) duplicated.push({ runId: id, invocations: list });
  }
  const foreign = [...perRun.keys()].filter((id) => !wanted.has(id)).length;
  return { perRun, duplicated, missing, foreign };
}

/** Prints one block of figures, one `key: value` per line, under a title. */
export function printFigures(title: string, figures: Record<string, unknown>): void {
  const lines = Object.entries(figures).map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  console.log(`\n[cluster figures] ${title}\n${lines.join('\n')}\n`);
}
