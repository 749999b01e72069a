import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const REROUTE_DISPATCHED_RUN = runWrite('rerouteDispatchedRun', ['DISPATCHED'], 'same');

/**
 * The executor tried first answered busy (429), 5xx or not at all: the run goes to the next
 * candidate, and the row must name the executor that now has it before that POST leaves
 * (same reason as markRunDispatched: a takeover re-sends to executor_id first).
 *
 *   UPDATE runs SET executor_id = ?, dispatched_at = ?, deadline_at = ?, updated_at = ?
 *    WHERE id = ? AND state = 'DISPATCHED' AND claimed_by = ? AND attempt = ?
 *
 * Not a state change. False when the run is no longer this node's DISPATCHED attempt — e.g. a
 * callback finished it (an executor that timed out on us did start the work after all): then
 * the dispatcher stops trying.
 */
export async function rerouteDispatchedRun(
  manager: EntityManager,
  input: { runId: number; attempt: number; nodeId: string; executorId: number; now: number; deadlineAt: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET executor_id = ?, dispatched_at = ?, deadline_at = ?, updated_at = ?
      WHERE id = ? AND ${stateIn(REROUTE_DISPATCHED_RUN)} AND claimed_by = ? AND attempt = ?`,
    [input.executorId, input.now, input.deadlineAt, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
