import type { EntityManager } from 'typeorm';
import { execute } from './sql';

/**
 * The executor answered 202: DISPATCHED → ACCEPTED.
 *
 *   UPDATE runs SET state = 'ACCEPTED', accepted_at = ?, deadline_at = ?, updated_at = ?
 *    WHERE id = ? AND state = 'DISPATCHED' AND claimed_by = ? AND attempt = ?
 *
 * The callback can overtake the ack (a 1 ms handler calls back, maybe to another engine,
 * before this update runs): the run is then SUCCEEDED/FAILED/RETRY_WAIT already and this
 * matches nothing — which is fine, the ack has nothing left to say. `attempt` and `claimed_by`
 * keep a late ack of an old attempt, or of a run taken over meanwhile, from touching the row.
 * The timeout is re-based on the ack (accepted_at + timeout), as the task's timeout means
 * "running for longer than this".
 */
export async function markRunAccepted(
  manager: EntityManager,
  input: { runId: number; attempt: number; nodeId: string; now: number; deadlineAt: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'ACCEPTED', accepted_at = ?, deadline_at = ?, updated_at = ?
      WHERE id = ? AND state = 'DISPATCHED' AND claimed_by = ? AND attempt = ?`,
    [input.now, input.deadlineAt, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
