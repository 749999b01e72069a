import type { EntityManager } from 'typeorm';
import type { FireCursor } from '@baton/domain';
import { execute } from '../../engine-queries/sql';

/**
 * Writes tasks' planner state after their prepared fires were withdrawn (domain
 * rewindForWithdrawn), one statement a task — a pause moves a few tasks, a group pause a group's:
 *
 *   UPDATE tasks SET fire_count = ?, next_fire_at = ? WHERE id = ? AND tenant_id = ?
 *
 * The caller read the values under lock (lockTask, lockGroupTasks), so the planner did not move them since.
 */
export async function setFireCursors(manager: EntityManager, input: { tenantId: string; cursors: ReadonlyArray<FireCursor & { taskId: number }> }): Promise<void> {
  for (const c of input.cursors) {
    await execute(manager, 'UPDATE tasks SET fire_count = ?, next_fire_at = ? WHERE id = ? AND tenant_id = ?', [c.fireCount, c.nextFireAt, c.taskId, input.tenantId]);
  }
}
