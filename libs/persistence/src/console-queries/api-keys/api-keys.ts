import { In, IsNull, type EntityManager } from 'typeorm';
import { ApiKeyEntity, UserEntity } from '../../entities';
import { anyTenant, ofTenant } from '../tenant-scope';
import { credentialsChanged } from './credential-changes';

/**
 * A tenant's API keys, or (operator, `tenantId` undefined) every tenant's, by id:
 *
 *   SELECT * FROM api_keys [WHERE tenant_id = ?] ORDER BY id
 */
export function listApiKeys(manager: EntityManager, tenantId: string | undefined): Promise<ApiKeyEntity[]> {
  return manager.find(ApiKeyEntity, { where: anyTenant(tenantId, {}), order: { id: 'ASC' } });
}

/**
 * A key by id: of the tenant, or (operator) of any:
 *
 *   SELECT * FROM api_keys WHERE id = ? [AND tenant_id = ?]
 */
export function findApiKey(manager: EntityManager, tenantId: string | undefined, id: number): Promise<ApiKeyEntity | null> {
  return manager.findOneBy(ApiKeyEntity, anyTenant(tenantId, { id }));
}

/**
 * Whether a live (not revoked) key of the tenant has this name — names are unique among those, so
 * `api-key:<name>` (an approval step's approver, the audit log's actor) is one key:
 *
 *   SELECT 1 FROM api_keys WHERE tenant_id = ? AND name = ? AND revoked_at IS NULL LIMIT 1   -- ix_api_keys_tenant
 */
export function liveApiKeyNamed(manager: EntityManager, tenantId: string, name: string): Promise<boolean> {
  return manager.existsBy(ApiKeyEntity, { tenantId, name, revokedAt: IsNull() });
}

/**
 * A new key of a tenant:
 *
 *   INSERT INTO api_keys (tenant_id, name, role, owner_user_id, prefix, key_hash, created_at, revoked_at) VALUES (…)
 */
export async function insertApiKey(manager: EntityManager, row: ApiKeyEntity): Promise<void> {
  await manager.insert(ApiKeyEntity, row);
}

/**
 * Revokes a key of the tenant (revoking twice keeps the first time):
 *
 *   UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL
 */
export async function revokeApiKey(manager: EntityManager, input: { tenantId: string; id: number; now: number }): Promise<void> {
  credentialsChanged();
  await manager.update(ApiKeyEntity, ofTenant(input.tenantId, { id: input.id, revokedAt: IsNull() }), { revokedAt: input.now });
}

/**
 * The user names of keys' owners, by id (the keys table shows them):
 *
 *   SELECT id, username FROM users WHERE id IN (…)
 */
export async function ownerNames(manager: EntityManager, ownerIds: readonly number[]): Promise<Map<number, string>> {
  if (ownerIds.length === 0) return new Map();
  const owners = await manager.find(UserEntity, { where: { id: In([...ownerIds]) }, select: { id: true, username: true } });
  return new Map(owners.map((u) => [u.id, u.username]));
}
