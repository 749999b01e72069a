import type { EntityManager } from 'typeorm';
import { RetentionPolicyEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's retention: its own (task 0) and its tasks' overrides, by task:
 *
 *   SELECT * FROM retention_policies WHERE tenant_id = ? ORDER BY task_id
 */
export function listRetentionPolicies(manager: EntityManager, tenantId: string): Promise<RetentionPolicyEntity[]> {
  return manager.find(RetentionPolicyEntity, { where: ofTenant(tenantId, {}), order: { taskId: 'ASC' } });
}

/**
 * One level of it (task 0: the tenant's), or null:
 *
 *   SELECT * FROM retention_policies WHERE tenant_id = ? AND task_id = ?          -- primary key
 */
export function findRetentionPolicy(manager: EntityManager, tenantId: string, taskId: number): Promise<RetentionPolicyEntity | null> {
  return manager.findOneBy(RetentionPolicyEntity, ofTenant(tenantId, { taskId }));
}

/**
 * Sets a level (insert or replace on the key (tenant_id, task_id)):
 *
 *   INSERT INTO retention_policies (…) VALUES (…)  |  UPDATE retention_policies SET … WHERE tenant_id = ? AND task_id = ?
 */
export async function saveRetentionPolicy(manager: EntityManager, row: RetentionPolicyEntity): Promise<void> {
  await manager.save(RetentionPolicyEntity, row);
}

/**
 * Removes a task's override (it takes its tenant's again):
 *
 *   DELETE FROM retention_policies WHERE tenant_id = ? AND task_id = ?
 */
export async function deleteRetentionPolicy(manager: EntityManager, tenantId: string, taskId: number): Promise<void> {
  await manager.delete(RetentionPolicyEntity, ofTenant(tenantId, { taskId }));
}
