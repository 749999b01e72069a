import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const SKIP_CLAIMED_RUN = runWrite('skipClaimedRun', ['CLAIMED'], 'SKIPPED');

/**
 * Concurrency FORBID: another run of the task is executing, so this one is SKIPPED.
 *
 *   UPDATE runs SET state = 'SKIPPED', claimed_by = NULL, lease_until = NULL, finished_at = ?, error = ?,
 *                   deadline_at = NULL, updated_at = ?
 *    WHERE id = ? AND state = 'CLAIMED' AND claimed_by = ? AND attempt = ?
 *
 * Guarded on this node's claim like every dispatch-side move: a run taken over meanwhile is the
 * new owner's to decide. The lease is released with it, as skipMisfiredRuns does.
 */
export async function skipClaimedRun(
  manager: EntityManager,
  input: { runId: number; attempt: number; nodeId: string; reason: string; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'SKIPPED', claimed_by = NULL, lease_until = NULL, finished_at = ?, error = ?,
                     deadline_at = NULL, updated_at = ?
      WHERE id = ? AND ${stateIn(SKIP_CLAIMED_RUN)} AND claimed_by = ? AND attempt = ?`,
    [input.now, input.reason, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
