import type { EntityManager } from 'typeorm';
import { RunEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * A run of the tenant by id, or null (another tenant's run is as absent as a missing one):
 *
 *   SELECT * FROM runs WHERE id = ? AND tenant_id = ?                              -- primary key
 */
export function findRun(manager: EntityManager, tenantId: string, id: number): Promise<RunEntity | null> {
  return manager.findOneBy(RunEntity, ofTenant(tenantId, { id }));
}

/**
 * Whether the tenant has this run:
 *
 *   SELECT 1 FROM runs WHERE id = ? AND tenant_id = ? LIMIT 1                      -- primary key
 */
export function runExists(manager: EntityManager, tenantId: string, id: number): Promise<boolean> {
  return manager.existsBy(RunEntity, ofTenant(tenantId, { id }));
}
