import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts); callers narrow `from`. */
export const DEFER_RUN_DISPATCH = runWrite('deferRunDispatch', ['CLAIMED', 'DISPATCHED'], 'RETRY_WAIT');

/**
 * No executor took the run (all busy, unreachable, or none UP): back to the database as
 * RETRY_WAIT, due again after the dispatch backoff, the SAME attempt, its instant kept.
 *
 *   UPDATE runs SET state = 'RETRY_WAIT', instant_at = COALESCE(instant_at, due_at), due_at = ?,
 *                   claimed_by = NULL, lease_until = NULL,
 *                   executor_id = ?, dispatched_at = NULL, deadline_at = NULL, error = ?, updated_at = ?
 *    WHERE id = ? AND state IN ('CLAIMED' | 'DISPATCHED') AND claimed_by = ? AND attempt = ?
 *
 * Why RETRY_WAIT and not keeping it in memory: the lease is released (claimed_by NULL), so any
 * engine of the group — one whose executors are reachable — may claim it when it is due again,
 * and nothing waits in the memory of a node that might die. The attempt does not move: the
 * handler never started, so the task's retry budget is not spent on the platform's trouble
 * (see apps/engine/src/common/dispatch-backoff.ts). `error` tells the console why it waits.
 * The back-off delays the send, never the start: instant_at keeps the instant the attempt is to
 * start at (due_at before its first deferral), so a run refused while sent ahead and sent again is
 * started at that instant, not `startInMs` after whenever it was re-sent. instant_at is set before
 * due_at: MariaDB evaluates a single-table SET left to right with the new values, SQLite with the
 * old ones — in this order both read the old due_at.
 * `executor_id` stays set only when an executor may have the run already (it gave no answer):
 * the next dispatch goes there first, where a repeat is de-duplicated, not run twice.
 */
export async function deferRunDispatch(
  manager: EntityManager,
  input: {
    runId: number;
    attempt: number;
    nodeId: string;
    from: ReadonlyArray<'CLAIMED' | 'DISPATCHED'>;
    /** When it may be claimed again (now + back-off); its instant stays. */
    dueAt: number;
    /** Executor that may have started the run (no answer), or null. */
    executorId: number | null;
    error: string;
    now: number;
  },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'RETRY_WAIT', instant_at = COALESCE(instant_at, due_at), due_at = ?, claimed_by = NULL, lease_until = NULL,
                     executor_id = ?, dispatched_at = NULL, deadline_at = NULL, error = ?, updated_at = ?
      WHERE id = ? AND ${stateIn(DEFER_RUN_DISPATCH, input.from)} AND claimed_by = ? AND attempt = ?`,
    [input.dueAt, input.executorId, input.error, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
