import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_RUN = runWrite('cancelRun', ACTIVE_STATES, 'CANCELLED');

/**
 * A user cancels one run of their tenant (POST /api/runs/{id}/cancel):
 *
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND state IN (PENDING, CLAIMED, DISPATCHED, ACCEPTED, RETRY_WAIT)
 *
 * One guarded update, so it cannot race a callback into moving a finished run: whichever comes
 * first wins, the other matches nothing. A run already dispatched may still be executing: the
 * engine sends the abort when it next touches the run and finds it CANCELLED. True if it moved.
 */
export async function cancelRun(manager: EntityManager, input: { runId: number; tenantId: string; now: number }): Promise<boolean> {
  const { affected } = await execute(manager, `UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ? WHERE id = ? AND tenant_id = ? AND ${stateIn(CANCEL_RUN)}`, [
    input.now,
    input.now,
    input.runId,
    input.tenantId,
  ]);
  return affected > 0;
}
