import { In, type EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { chunks } from '../../engine-queries/sql';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's tasks of these names (a batch's clash check and its read-back), 500 names a query:
 *
 *   SELECT * FROM tasks WHERE tenant_id = ? AND name IN (…)                       -- uq_tasks_tenant_name
 */
export async function findTasksByName(manager: EntityManager, tenantId: string, names: readonly string[]): Promise<TaskEntity[]> {
  const parts = await Promise.all(chunks(names).map((part) => manager.find(TaskEntity, { where: ofTenant(tenantId, { name: In(part) }) })));
  return parts.flat();
}

/**
 * The id of the tenant's task of this name, or null (a save's name check):
 *
 *   SELECT id FROM tasks WHERE tenant_id = ? AND name = ?                          -- uq_tasks_tenant_name
 */
export async function findTaskIdByName(manager: EntityManager, tenantId: string, name: string): Promise<number | null> {
  const row = await manager.findOne(TaskEntity, { where: ofTenant(tenantId, { name }), select: { id: true } });
  return row?.id ?? null;
}
