import type { EntityManager } from 'typeorm';
import { TaskDependencyEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's dependency edges (the DAG), or those a task is in, by id:
 *
 *   SELECT * FROM task_dependencies WHERE tenant_id = ? [AND (parent_task_id = ? OR child_task_id = ?)] ORDER BY id
 */
export function listEdges(manager: EntityManager, tenantId: string, taskId?: number): Promise<TaskDependencyEntity[]> {
  const where = taskId === undefined ? ofTenant(tenantId, {}) : [ofTenant(tenantId, { parentTaskId: taskId }), ofTenant(tenantId, { childTaskId: taskId })];
  return manager.find(TaskDependencyEntity, { where, order: { id: 'ASC' } });
}

/**
 * An edge of the tenant by id, or null:
 *
 *   SELECT * FROM task_dependencies WHERE id = ? AND tenant_id = ?
 */
export function findEdge(manager: EntityManager, tenantId: string, id: number): Promise<TaskDependencyEntity | null> {
  return manager.findOneBy(TaskDependencyEntity, ofTenant(tenantId, { id }));
}

/**
 * Whether the tenant has the edge parent → child already:
 *
 *   SELECT 1 FROM task_dependencies WHERE tenant_id = ? AND parent_task_id = ? AND child_task_id = ? LIMIT 1
 */
export function edgeExists(manager: EntityManager, tenantId: string, parentTaskId: number, childTaskId: number): Promise<boolean> {
  return manager.existsBy(TaskDependencyEntity, ofTenant(tenantId, { parentTaskId, childTaskId }));
}

/**
 * A new edge (checked for cycles by the caller, under the tenant's lock):
 *
 *   INSERT INTO task_dependencies (tenant_id, parent_task_id, child_task_id, `condition`, created_at) VALUES (…)
 */
export async function insertEdge(manager: EntityManager, row: TaskDependencyEntity): Promise<void> {
  await manager.insert(TaskDependencyEntity, row);
}

/**
 * An edge's new condition and approval step:
 *
 *   UPDATE task_dependencies SET `condition` = ?, approval = ? WHERE id = ? AND tenant_id = ?
 */
export async function updateEdge(manager: EntityManager, tenantId: string, id: number, change: Pick<TaskDependencyEntity, 'condition' | 'approval'>): Promise<void> {
  await manager.update(TaskDependencyEntity, ofTenant(tenantId, { id }), { condition: change.condition, approval: change.approval });
}
