import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_BACKFILL_RUNS = runWrite('cancelBackfillRuns', ['PENDING', 'CLAIMED'], 'CANCELLED');

/**
 * A backfill is stopped (DELETE /api/tasks/{id}/backfill): its runs not sent yet end CANCELLED;
 * the ones already running finish (cancel those one by one from the run page):
 *
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?
 *    WHERE task_id = ? AND tenant_id = ? AND cause = 'BACKFILL' AND state IN ('PENDING', 'CLAIMED')
 *
 * An engine holding one of them in memory finds it CANCELLED when it starts it, and drops it.
 * Returns how many runs it cancelled.
 */
export async function cancelBackfillRuns(manager: EntityManager, input: { taskId: number; tenantId: string; now: number }): Promise<number> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?
      WHERE task_id = ? AND tenant_id = ? AND cause = 'BACKFILL' AND ${stateIn(CANCEL_BACKFILL_RUNS)}`,
    [input.now, input.now, input.taskId, input.tenantId],
  );
  return affected;
}
