import type { EntityManager } from 'typeorm';
import { RUN_STATES } from '@baton/domain';
import { dialectOf, execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** No state move (its fire key only), from any state but COALESCING (run-writes.spec.ts). */
export const RETIRE_WINDOW_NAME = runWrite('retireWindowName', RUN_STATES.filter((s) => s !== 'COALESCING'), 'same');

/**
 * Frees a window's name (`w:<digest>`) from a run that is no longer COALESCING — an engine claimed
 * it, or a person cancelled it — so that the key's next submission opens a new window:
 *
 *   UPDATE runs SET fire_key = CONCAT('w#', id)        -- SQLite: 'w#' || id
 *    WHERE task_id = ? AND fire_key = ? AND tenant_id = ? AND state IN (every state but 'COALESCING')
 *
 * Done here, when the name is next wanted, rather than by every way a run leaves COALESCING (the
 * claim, a cancel, the task's deletion): one place, and none on the engines' claim path. The new
 * fire key is unique as the run's id is. The row's state is read under its lock, so a window
 * still open is never renamed. Returns whether a run was renamed.
 */
export async function retireWindowName(manager: EntityManager, ref: { tenantId: string; taskId: number; fireKey: string }): Promise<boolean> {
  const renamed = dialectOf(manager) === 'mysql' ? "CONCAT('w#', id)" : "'w#' || id";
  const { affected } = await execute(
    manager,
    `UPDATE runs SET fire_key = ${renamed} WHERE task_id = ? AND fire_key = ? AND tenant_id = ? AND ${stateIn(RETIRE_WINDOW_NAME)}`,
    [ref.taskId, ref.fireKey, ref.tenantId],
  );
  return affected > 0;
}
