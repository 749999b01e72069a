import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_ORPHANED_RUNS = runWrite('cancelOrphanedRuns', ['CLAIMED'], 'CANCELLED');

/**
 * Claimed runs whose task no longer exists (deleted between the run's creation and its claim;
 * the console cancels a deleted task's active runs, this catches the race) cannot be
 * dispatched — there is no executor app or handler to send them to:
 *
 *   UPDATE runs SET state = 'CANCELLED', claimed_by = NULL, lease_until = NULL,
 *                   finished_at = ?, error = ?, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ?
 */
export async function cancelOrphanedRuns(manager: EntityManager, ids: readonly number[], owner: string, now: number): Promise<number> {
  if (ids.length === 0) return 0;
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', claimed_by = NULL, lease_until = NULL, finished_at = ?, error = ?, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(CANCEL_ORPHANED_RUNS)} AND claimed_by = ?`,
    [now, 'Cancelled: the task was deleted', now, ...ids, owner],
  );
  return affected;
}
