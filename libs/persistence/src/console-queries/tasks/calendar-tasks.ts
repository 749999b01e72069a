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
