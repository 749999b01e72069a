import { In, type EntityManager } from 'typeorm';
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
 * The tenant's runs of `ids`, by id (another tenant's id reads as missing), in one read:
 *
 *   SELECT * FROM runs WHERE tenant_id = ? AND id IN (…)                           -- primary key
 */
export async function findRuns(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, RunEntity>> {
  const runs = ids.length ? await manager.find(RunEntity, { where: { tenantId, id: In([...ids]) } }) : [];
  return new Map(runs.map((r) => [r.id, r]));
}

/**
 * Whether the tenant has this run:
 *
 *   SELECT 1 FROM runs WHERE id = ? AND tenant_id = ? LIMIT 1                      -- primary key
 */
export function runExists(manager: EntityManager, tenantId: string, id: number): Promise<boolean> {
  return manager.existsBy(RunEntity, ofTenant(tenantId, { id }));
}
