import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_TASK_RUNS = runWrite('cancelTaskRuns', ACTIVE_STATES, 'CANCELLED');

/**
 * A task is deleted: its runs that are not over end CANCELLED in the same transaction, so no
 * engine dispatches a run of a task that no longer exists (one that holds such a run in memory
 * finds it CANCELLED and drops it; an executing one gets its abort):
 *
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?
 *    WHERE task_id = ? AND tenant_id = ? AND state IN (PENDING, CLAIMED, DISPATCHED, ACCEPTED, RETRY_WAIT)
 *
 * Returns how many runs it cancelled.
 */
export async function cancelTaskRuns(manager: EntityManager, input: { taskId: number; tenantId: string; now: number }): Promise<number> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ? WHERE task_id = ? AND tenant_id = ? AND ${stateIn(CANCEL_TASK_RUNS)}`,
    [input.now, input.now, input.taskId, input.tenantId],
  );
  return affected;
}
