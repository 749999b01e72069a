import type { EntityManager } from 'typeorm';
import { EngineGroupEntity, EngineNodeEntity, TenantEntity } from '../../entities';

/**
 * Engine groups are the operator's, of no tenant: these queries take none.
 *
 *   SELECT * FROM engine_groups ORDER BY name
 */
export function listEngineGroups(manager: EntityManager): Promise<EngineGroupEntity[]> {
  return manager.find(EngineGroupEntity, { order: { name: 'ASC' } });
}

/**
 *   SELECT * FROM engine_groups WHERE name = ?                                   -- primary key
 */
export function findEngineGroup(manager: EntityManager, name: string): Promise<EngineGroupEntity | null> {
  return manager.findOneBy(EngineGroupEntity, { name });
}

/**
 *   INSERT INTO engine_groups (name, description, created_at) VALUES (?, ?, ?)
 */
export async function insertEngineGroup(manager: EntityManager, row: EngineGroupEntity): Promise<void> {
  await manager.insert(EngineGroupEntity, row);
}

/**
 *   UPDATE engine_groups SET description = ? WHERE name = ?
 */
export async function updateEngineGroup(manager: EntityManager, name: string, description: string): Promise<void> {
  await manager.update(EngineGroupEntity, { name }, { description });
}

/**
 * Deletes a group no tenant is bound to (the caller checked, in the same transaction):
 *
 *   DELETE FROM engine_groups WHERE name = ?
 */
export async function deleteEngineGroup(manager: EntityManager, name: string): Promise<void> {
  await manager.delete(EngineGroupEntity, { name });
}

/**
 * Each tenant's group (the groups page lists the tenants of each), or the tenants of one group:
 *
 *   SELECT id, engine_group FROM tenants [WHERE engine_group = ?] ORDER BY id
 */
export function tenantGroupsAcrossTenants(manager: EntityManager, engineGroup?: string): Promise<Array<Pick<TenantEntity, 'id' | 'engineGroup'>>> {
  return manager.find(TenantEntity, { where: engineGroup === undefined ? {} : { engineGroup }, select: { id: true, engineGroup: true }, order: { id: 'ASC' } });
}

/**
 * The engine nodes and their heartbeats:
 *
 *   SELECT * FROM engine_nodes ORDER BY id
 */
export function listEngineNodes(manager: EntityManager): Promise<EngineNodeEntity[]> {
  return manager.find(EngineNodeEntity, { order: { id: 'ASC' } });
}
