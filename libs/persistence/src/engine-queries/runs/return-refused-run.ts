import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const RETURN_REFUSED_RUN = runWrite('returnRefusedRun', ['DISPATCHED'], 'CLAIMED');

/**
 * Every executor asked answered busy (429: none took the run): back in this engine's hands, still
 * leased, as before its DISPATCHED mark.
 *
 *   UPDATE runs SET state = 'CLAIMED', executor_id = NULL, dispatched_at = NULL, deadline_at = NULL, updated_at = ?
 *    WHERE id = ? AND state = 'DISPATCHED' AND claimed_by = ? AND attempt = ?
 *
 * Why not back to the database (deferRunDispatch, RETRY_WAIT): a run given back is claimed again in
 * the order runs are due, behind the runs of its tenant due before it; behind a backlog on a busy
 * app a trigger of another task refused once waited for the whole backlog (23–69 s, 42 of 250 in
 * one run of bench task-backlog --bulk-ms). The engine holds it back until an executor has room
 * (CreditGate), a line per task. A run taken over or ended meanwhile is not this node's: false.
 */
export async function returnRefusedRun(manager: EntityManager, input: { runId: number; attempt: number; nodeId: string; now: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CLAIMED', executor_id = NULL, dispatched_at = NULL, deadline_at = NULL, updated_at = ?
      WHERE id = ? AND ${stateIn(RETURN_REFUSED_RUN)} AND claimed_by = ? AND attempt = ?`,
    [input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
