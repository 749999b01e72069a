import type { EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's tasks that use a calendar (a calendar's edit moves their next fire; its delete
 * is refused while there are any), at most `limit`:
 *
 *   SELECT * FROM tasks WHERE tenant_id = ? AND calendar_id = ? [LIMIT ?]
 */
export function findCalendarTasks(manager: EntityManager, tenantId: string, calendarId: number, limit?: number): Promise<TaskEntity[]> {
  return manager.find(TaskEntity, { where: ofTenant(tenantId, { calendarId }), ...(limit === undefined ? {} : { take: limit }) });
}

/**
 * How many of the tenant's tasks use a calendar:
 *
 *   SELECT COUNT(*) FROM tasks WHERE tenant_id = ? AND calendar_id = ?
 */
export function countCalendarTasks(manager: EntityManager, tenantId: string, calendarId: number): Promise<number> {
  return manager.countBy(TaskEntity, ofTenant(tenantId, { calendarId }));
}

/**
 * A task's next fire time moved by its calendar's edit, guarded by the version it was read at
 * (a save meanwhile wins; the planner reads the task's own):
 *
 *   UPDATE tasks SET next_fire_at = ?, updated_at = ? WHERE id = ? AND version = ?
 *
 * `version` does not move: the task's definition is unchanged (the calendar's edit is the
 * calendar's, audited as such), and a task's versions are its definitions — a bump here would
 * leave a number the task's History tab cannot list. As with the planner's own moves
 * (advancePlannedTasks), a save from a stale read that rewrites next_fire_at cannot make a task
 * fire on an excluded date: the planner resumes from the stored time with the calendar applied
 * (resumeFireTime).
 */
export async function moveTaskNextFire(manager: EntityManager, input: { id: number; readVersion: number; nextFireAt: number | null; now: number }): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(TaskEntity)
    .set({ nextFireAt: input.nextFireAt, updatedAt: input.now })
    .where('id = :id AND version = :version', { id: input.id, version: input.readVersion })
    .execute();
}

/**
 * A task whose calendar was renamed: its definition now names the new calendar, so it moves to
 * its next version (which the caller keeps), guarded by the version it was read at (a save
 * meanwhile wins, and keeps its own version with the new name):
 *
 *   UPDATE tasks SET version = version + 1, updated_at = ? WHERE id = ? AND tenant_id = ? AND version = ?
 *
 * Returns whether it moved.
 */
export async function bumpRenamedCalendarTask(manager: EntityManager, input: { id: number; tenantId: string; readVersion: number; now: number }): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(TaskEntity)
    .set({ version: () => 'version + 1', updatedAt: input.now })
    .where('id = :id AND tenant_id = :tenantId AND version = :version', { id: input.id, tenantId: input.tenantId, version: input.readVersion })
    .execute();
  return (result.affected ?? 0) > 0;
}
