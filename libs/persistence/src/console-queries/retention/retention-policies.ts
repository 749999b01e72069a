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
 * Sets a level (insert or replace on the key (tenant_id, task_id)), and makes the tenant's purge
 * due at the history job's next turn:
 *
 *   INSERT INTO retention_policies (…) VALUES (…)  |  UPDATE retention_policies SET … WHERE tenant_id = ? AND task_id = ?
 *   UPDATE history_cursors SET purge_due_at = 0 WHERE tenant_id = ?
 *
 * The second because the job purges a tenant every tenth of its shortest retention, at most
 * every 10 minutes (domain purgePeriodMs): a retention shortened from 30 days to an hour would
 * otherwise wait up to 10 minutes for its first purge.
 */
export async function saveRetentionPolicy(manager: EntityManager, row: RetentionPolicyEntity): Promise<void> {
  await manager.save(RetentionPolicyEntity, row);
  await purgeAtNextTurn(manager, row.tenantId);
}

/**
 * Removes a task's override (it takes its tenant's again), the tenant's purge due at once (as above):
 *
 *   DELETE FROM retention_policies WHERE tenant_id = ? AND task_id = ?
 *   UPDATE history_cursors SET purge_due_at = 0 WHERE tenant_id = ?
 */
export async function deleteRetentionPolicy(manager: EntityManager, tenantId: string, taskId: number): Promise<void> {
  await manager.delete(RetentionPolicyEntity, ofTenant(tenantId, { taskId }));
  await purgeAtNextTurn(manager, tenantId);
}

async function purgeAtNextTurn(manager: EntityManager, tenantId: string): Promise<void> {
  await manager.query('UPDATE history_cursors SET purge_due_at = 0 WHERE tenant_id = ?', [tenantId]);
}
