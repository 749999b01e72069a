import type { EntityManager } from 'typeorm';
import { RunApprovalEntity } from '../entities';
import { ofTenant } from '../console-queries/tenant-scope';

/**
 * A run's approval, of the tenant, or null (the run never waited for one):
 *
 *   SELECT * FROM run_approvals WHERE run_id = ? AND tenant_id = ?
 *
 * By primary key; the tenant filter keeps another tenant's run as unknown as a missing one.
 */
export function findRunApproval(manager: EntityManager, tenantId: string, runId: number): Promise<RunApprovalEntity | null> {
  return manager.findOneBy(RunApprovalEntity, ofTenant(tenantId, { runId }));
}
