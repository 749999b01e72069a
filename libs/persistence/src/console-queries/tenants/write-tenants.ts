import { In, type EntityManager } from 'typeorm';
import { RunEntity, TaskEntity, TenantEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/** Runs not yet owned by an engine: moving a tenant to another group moves these with it. */
/** Runs no engine owns: they follow their tenant to its new group (APPROVAL_WAIT: its deadline is the new group's engines' to enforce; COALESCING: theirs to claim when due). */
const UNCLAIMED_RUN_STATES = ['PENDING', 'RETRY_WAIT', 'APPROVAL_WAIT', 'HELD', 'COALESCING'] as const;

/**
 * A new tenant (the operator's):
 *
 *   INSERT INTO tenants (id, name, engine_group, executor_secret, rate_per_sec, burst, claim_share, executor_networks, created_at) VALUES (…)
 */
export async function insertTenant(manager: EntityManager, row: TenantEntity): Promise<void> {
  await manager.insert(TenantEntity, row);
}

/**
 * A tenant's settings, as the operator changed them:
 *
 *   UPDATE tenants SET name = ?, engine_group = ?, rate_per_sec = ?, burst = ?, claim_share = ?, executor_networks = ?, backlog_alarm_ms = ? WHERE id = ?
 */
export async function updateTenant(
  manager: EntityManager,
  row: Pick<TenantEntity, 'id' | 'name' | 'engineGroup' | 'ratePerSec' | 'burst' | 'claimShare' | 'executorNetworks' | 'backlogAlarmMs' | 'ssoRequired'>,
): Promise<void> {
  // Named one by one: the row given may be a whole entity, and only these are the operator's to change.
  const { name, engineGroup, ratePerSec, burst, claimShare, executorNetworks, backlogAlarmMs, ssoRequired } = row;
  await manager.update(TenantEntity, { id: row.id }, { name, engineGroup, ratePerSec, burst, claimShare, executorNetworks, backlogAlarmMs, ssoRequired });
}

/**
 * A tenant moved to another engine group takes its tasks and its runs no engine owns yet (the
 * claimed ones finish where they are), in the move's transaction:
 *
 *   UPDATE tasks SET engine_group = ?, version = version + 1 WHERE tenant_id = ?   -- changed tasks: copies a console kept are stale
 *   UPDATE runs SET engine_group = ?, updated_at = ? WHERE tenant_id = ? AND state IN ('PENDING', 'RETRY_WAIT', 'APPROVAL_WAIT', 'HELD', 'COALESCING')
 */
export async function moveTenantGroup(manager: EntityManager, input: { tenantId: string; engineGroup: string; now: number }): Promise<void> {
  await manager.update(TaskEntity, ofTenant(input.tenantId, {}), { engineGroup: input.engineGroup, version: () => 'version + 1' });
  await manager.update(RunEntity, ofTenant(input.tenantId, { state: In([...UNCLAIMED_RUN_STATES]) }), { engineGroup: input.engineGroup, updatedAt: input.now });
}
