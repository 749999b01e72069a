import type { EntityManager } from 'typeorm';
import { execute } from './sql';

/**
 * CLAIMED → DISPATCHED, written BEFORE the POST to the executor leaves:
 *
 *   UPDATE runs SET state = 'DISPATCHED', executor_id = ?, dispatched_at = ?, accepted_at = NULL,
 *                   deadline_at = ?, updated_at = ?
 *    WHERE id = ? AND state = 'CLAIMED' AND claimed_by = ? AND attempt = ?
 *
 * Why so:
 * - `claimed_by = me`: only the lease holder may send. If this node stalled and a survivor took
 *   the run over (claimed_by changed, or the run went back to PENDING), the update matches
 *   nothing and the run is dropped from memory instead of being fired twice.
 * - written before sending: if the engine dies after the POST, the row says which executor
 *   has it (the takeover re-sends there first; the SDK de-duplicates by run and attempt).
 * - `deadline_at = dispatched_at + timeout` starts the attempt's clock for the watchdog now, so
 *   a run whose ack is lost still times out (DISPATCHED → TIMED_OUT).
 * True when the row moved.
 */
export async function markRunDispatched(
  manager: EntityManager,
  input: { runId: number; attempt: number; nodeId: string; executorId: number; now: number; deadlineAt: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'DISPATCHED', executor_id = ?, dispatched_at = ?, accepted_at = NULL, deadline_at = ?, updated_at = ?
      WHERE id = ? AND state = 'CLAIMED' AND claimed_by = ? AND attempt = ?`,
    [input.executorId, input.now, input.deadlineAt, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
