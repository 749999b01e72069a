import type { EntityManager } from 'typeorm';
import { containing } from '../search-slice';
import { ofTenant } from '../tenant-scope';
import { TaskEntity } from '../../entities';

/**
 * A page of the tenant's tasks by name (GET /api/tasks), `limit` rows after the name `afterName`:
 *
 *   SELECT * FROM tasks WHERE tenant_id = ? [AND name LIKE ? ESCAPE '!'] [AND group_name = ?]
 *      [AND paused = ?] [AND name > ?] ORDER BY name LIMIT ?                      -- uq_tasks_tenant_name
 */
export function listTasks(
  manager: EntityManager,
  tenantId: string,
  filter: { search?: string; group?: string; paused?: boolean; afterName?: string; limit: number },
): Promise<TaskEntity[]> {
  const qb = manager.getRepository(TaskEntity).createQueryBuilder('t').where('t.tenantId = :tenantId', { tenantId });
  if (filter.search) qb.andWhere("t.name LIKE :search ESCAPE '!'", { search: containing(filter.search) });
  if (filter.group !== undefined) qb.andWhere('t.groupName = :group', { group: filter.group });
  if (filter.paused !== undefined) qb.andWhere('t.paused = :paused', { paused: filter.paused });
  if (filter.afterName !== undefined) qb.andWhere('t.name > :after', { after: filter.afterName });
  return qb.orderBy('t.name', 'ASC').take(filter.limit).getMany();
}

/**
 * The ids of the tenant's first `limit` tasks by name (the task list's summaries when no ids are named):
 *
 *   SELECT id FROM tasks WHERE tenant_id = ? ORDER BY name LIMIT ?                 -- uq_tasks_tenant_name
 */
export async function firstTaskIds(manager: EntityManager, tenantId: string, limit: number): Promise<number[]> {
  const rows = await manager.find(TaskEntity, { where: ofTenant(tenantId, {}), select: { id: true }, take: limit, order: { name: 'ASC' } });
  return rows.map((r) => r.id);
}

/**
 * All the tenant's tasks by name (tasks as code: the export, and what a plan compares with):
 *
 *   SELECT * FROM tasks WHERE tenant_id = ? ORDER BY name                          -- uq_tasks_tenant_name
 */
export function allTasksByName(manager: EntityManager, tenantId: string): Promise<TaskEntity[]> {
  return manager.find(TaskEntity, { where: ofTenant(tenantId, {}), order: { name: 'ASC' } });
}
