import type { EntityManager } from 'typeorm';
import { dialectOf } from '../../engine-queries/sql';
import { TenantEntity } from '../../entities';

/**
 * A tenant's own row (its engine group, for the tasks it creates), or null:
 *
 *   SELECT * FROM tenants WHERE id = ?                                            -- primary key
 */
export function findTenant(manager: EntityManager, tenantId: string): Promise<TenantEntity | null> {
  return manager.findOneBy(TenantEntity, { id: tenantId });
}

/**
 * Whether a tenant exists (a user or key named for it):
 *
 *   SELECT 1 FROM tenants WHERE id = ? LIMIT 1
 */
export function tenantExists(manager: EntityManager, tenantId: string): Promise<boolean> {
  return manager.existsBy(TenantEntity, { id: tenantId });
}

/**
 * Locks the tenant's row for the transaction (MySQL; SQLite's transactions are serial already):
 * a dependency edge's cycle check holds it, and a tasks-as-code apply, so two edges saved at once
 * (by the API or a file) cannot close a cycle together.
 *
 *   SELECT * FROM tenants WHERE id = ? FOR UPDATE
 */
export async function lockTenant(manager: EntityManager, tenantId: string): Promise<void> {
  if (dialectOf(manager) !== 'mysql') return;
  await manager.createQueryBuilder(TenantEntity, 't').setLock('pessimistic_write').where('t.id = :tenantId', { tenantId }).getOne();
}

/**
 * Every tenant, by id (the operator's list):
 *
 *   SELECT * FROM tenants ORDER BY id
 */
export function listTenants(manager: EntityManager): Promise<TenantEntity[]> {
  return manager.find(TenantEntity, { order: { id: 'ASC' } });
}

/**
 * Whether a tenant requires single sign-on (its users' password logins are refused):
 *
 *   SELECT 1 FROM tenants WHERE id = ? AND sso_required = 1 LIMIT 1              -- primary key
 */
export function tenantRequiresSso(manager: EntityManager, tenantId: string): Promise<boolean> {
  return manager.existsBy(TenantEntity, { id: tenantId, ssoRequired: true });
}
