import { In, type EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { chunks, dialectOf } from '../../engine-queries/sql';
import { ofTenant } from '../tenant-scope';

/**
 * Pauses or resumes tasks of the tenant (one, or a group's), each a new version:
 *
 *   UPDATE tasks SET paused = ?, updated_at = ?, version = version + 1 WHERE tenant_id = ? AND id IN (…)
 *
 * Resuming keeps the stored next fire time: one that passed while paused is a misfire for the
 * planner. Returns how many moved.
 */
export async function setTasksPaused(manager: EntityManager, input: { tenantId: string; ids: readonly number[]; paused: boolean; now: number }): Promise<number> {
  let moved = 0;
  for (const part of chunks(input.ids)) {
    const result = await manager
      .createQueryBuilder()
      .update(TaskEntity)
      .set({ paused: input.paused, updatedAt: input.now, version: () => 'version + 1' })
      .where(ofTenant(input.tenantId, { id: In(part) }))
      .execute();
    moved += result.affected ?? 0;
  }
  return moved;
}

/**
 * The tenant's tasks of a group that a group pause or resume moves (those not already there),
 * locked for the change on MySQL so the versions kept are those of the rows it moves:
 *
 *   SELECT * FROM tasks WHERE tenant_id = ? AND group_name = ? AND paused = ? [FOR UPDATE]
 */
export function lockGroupTasks(manager: EntityManager, input: { tenantId: string; group: string; paused: boolean }): Promise<TaskEntity[]> {
  const query = manager.createQueryBuilder(TaskEntity, 't').where('t.tenantId = :tenantId AND t.groupName = :group AND t.paused = :was', { tenantId: input.tenantId, group: input.group, was: !input.paused });
  if (dialectOf(manager) === 'mysql') query.setLock('pessimistic_write');
  return query.getMany();
}
