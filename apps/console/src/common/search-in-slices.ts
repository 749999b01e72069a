import type { Dialect } from '@baton/persistence';
import { nextTurn } from './next-turn';

/** A position in a list ordered by (time desc, id desc): where a search goes on, strictly below. */
interface SearchKey {
  time: number;
  id: number;
}

/**
 * What one substring search call (run search, event payload search) examines at most, and in
 * slices of how many rows, by dialect. The budget bounds a call's cost at any history size
 * (docs/BENCHMARKS.md). On SQLite better-sqlite3 answers synchronously, so a slice holds the event
 * loop — every tenant's requests — for its whole time: a call there examines 5,000 rows, each
 * slice of 1,000 on a turn of its own, and another tenant's request waits behind one slice (about
 * 0.5 ms), not a whole call. On MariaDB the queries leave the event loop free: one slice a call.
 */
export const SEARCH_SCAN: Readonly<Record<Dialect, { budget: number; slice: number }>> = {
  mysql: { budget: 20_000, slice: 20_000 },
  sqlite: { budget: 5_000, slice: 1_000 },
};

/**
 * One search call: `read` (one bounded slice: at most `scanBudget` rows examined below `after`,
 * at most `limit` matches, and where to go on) called slice after slice, each after the first on
 * a turn of its own, until the dialect's budget is examined, `limit` matches are found or the
 * range ends. The rows are those one read of the whole budget gives, and the key to go on from
 * skips none: where a slice ends with the limit reached, it is that slice's end rather than the
 * last match (the rows between were examined).
 */
export async function searchInSlices<R>(
  dialect: Dialect,
  request: { after: SearchKey | null; limit: number },
  read: (after: SearchKey | null, scanBudget: number, limit: number) => Promise<{ rows: R[]; next: SearchKey | null }>,
): Promise<{ rows: R[]; next: SearchKey | null }> {
  const { budget, slice } = SEARCH_SCAN[dialect];
  const rows: R[] = [];
  let next = request.after;
  for (let examined = 0; examined < budget; examined += slice) {
    if (examined > 0) await nextTurn();
    const page = await read(next, Math.min(slice, budget - examined), request.limit - rows.length);
    rows.push(...page.rows);
    next = page.next;
    if (next === null || rows.length >= request.limit) break;
  }
  return { rows, next };
}
