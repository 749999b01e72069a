import type { EntityManager } from 'typeorm';
import { caseById, dialectOf, execute, num, placeholders } from '../sql';

/** What a DISPATCHED mark whose answer never came did to one run. */
export type MarkOutcome =
  /** The mark committed: the run is DISPATCHED by this node at the mark's time, so it must be sent. */
  | 'MARKED'
  /** The mark did not commit: the run is still CLAIMED by this node, to be marked again or given back. */
  | 'NOT_MARKED'
  /** Neither: taken over or cancelled meanwhile, not this node's to send. */
  | 'GONE';

/**
 * Which runs did a DISPATCHED mark move, when the mark's answer was lost — the connection dropped
 * during its UPDATE or its COMMIT (a database writer killed, a failover, a network cut):
 *
 *   SELECT id, state, dispatched_at FROM runs
 *    WHERE id IN (…) AND claimed_by = ? AND attempt = <by id>
 *      FOR UPDATE
 *   -- <by id>: each row's own value (caseById: `?` when all rows share it)
 *
 * Why so:
 * - without it, a mark that committed while its answer was lost was taken for failed: the runs
 *   stayed DISPATCHED, never sent, until their timeout (44 of 600 runs in test/ha once, a Galera
 *   writer killed mid-burst). Asking the database decides it.
 * - `dispatched_at = <the mark's time>` tells this mark's move from any other: a node marks a run
 *   once per attempt, and a mark's time is its own.
 * - FOR UPDATE (MySQL): a locking read waits for the rows' locks, so a mark still running on a
 *   server that has not yet noticed its client left ends (commits or rolls back) before it is
 *   read. A plain read could see the rows CLAIMED, and the mark commit just after.
 * - autocommitted: the read's locks last the statement only.
 */
export async function readBackDispatchMarks(
  manager: EntityManager,
  input: { nodeId: string; markedAt: number; runs: ReadonlyArray<{ runId: number; attempt: number }> },
): Promise<Map<number, MarkOutcome>> {
  const { runs, nodeId, markedAt } = input;
  const outcomes = new Map<number, MarkOutcome>(runs.map((r) => [r.runId, 'GONE']));
  if (runs.length === 0) return outcomes;
  const attempt = caseById(runs, (r) => r.runId, (r) => r.attempt);
  const lock = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
  const { rows } = await execute<{ id: unknown; state: string; dispatched_at: unknown }>(
    manager,
    `SELECT id, state, dispatched_at FROM runs
      WHERE id IN (${placeholders(runs.length)}) AND claimed_by = ? AND attempt = ${attempt.sql} ${lock}`,
    [...runs.map((r) => r.runId), nodeId, ...attempt.params],
  );
  for (const row of rows) {
    if (row.state === 'CLAIMED') outcomes.set(num(row.id), 'NOT_MARKED');
    else if (row.state === 'DISPATCHED' && num(row.dispatched_at) === markedAt) outcomes.set(num(row.id), 'MARKED');
  }
  return outcomes;
}
