import { In, type EntityManager } from 'typeorm';
import { TaskDependencyEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's dependency edges a task is in, as parent or child (a task's delete refuses them
 * or takes them along):
 *
 *   SELECT * FROM task_dependencies WHERE (tenant_id = ? AND parent_task_id = ?) OR (tenant_id = ? AND child_task_id = ?) ORDER BY id
 */
export function findTaskEdges(manager: EntityManager, tenantId: string, taskId: number): Promise<TaskDependencyEntity[]> {
  return manager.find(TaskDependencyEntity, { where: [ofTenant(tenantId, { parentTaskId: taskId }), ofTenant(tenantId, { childTaskId: taskId })], order: { id: 'ASC' } });
}

/**
 * Deletes edges of the tenant by id:
 *
 *   DELETE FROM task_dependencies WHERE tenant_id = ? AND id IN (…)
 */
export async function deleteEdges(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await manager.delete(TaskDependencyEntity, ofTenant(tenantId, { id: In([...ids]) }));
}
