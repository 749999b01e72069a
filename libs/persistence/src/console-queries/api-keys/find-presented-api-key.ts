import type { EntityManager } from 'typeorm';
import type { KeyOwner, Role } from '@baton/domain';
import { execute, num } from '../../engine-queries/sql';

/** A live key as a request presents it, with what decides whether it still works. */
export interface PresentedApiKey {
  id: number;
  tenantId: string;
  name: string;
  role: Role;
  /** Null: made before owners were recorded. */
  ownerUserId: number | null;
  /** The owner as it is now; null when the key has an owner who is gone. */
  owner: KeyOwner | null;
}

/**
 * The live key a request presents (stored as its SHA-256 only) whose tenant exists, with its
 * owner — or null:
 *
 *   SELECT k.id, k.tenant_id, k.name, k.role, k.owner_user_id, u.id, u.role, u.disabled
 *     FROM api_keys k
 *     JOIN tenants t ON t.id = k.tenant_id                        -- a deleted tenant's key is no key
 *     LEFT JOIN users u ON u.id = k.owner_user_id
 *    WHERE k.key_hash = ? AND k.revoked_at IS NULL                -- uq_api_keys_key_hash
 *
 * One statement for what every API request checks (it was three: key, tenant, owner). Each is a
 * round trip before the request's own work; a run now's trigger waited for them.
 */
export async function findPresentedApiKey(manager: EntityManager, keyHash: string): Promise<PresentedApiKey | null> {
  const { rows } = await execute(
    manager,
    `SELECT k.id, k.tenant_id, k.name, k.role, k.owner_user_id, u.id AS owner_id, u.role AS owner_role, u.disabled AS owner_disabled
       FROM api_keys k
       JOIN tenants t ON t.id = k.tenant_id
       LEFT JOIN users u ON u.id = k.owner_user_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    [keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  const ownerUserId = row.owner_user_id === null ? null : num(row.owner_user_id);
  return {
    id: num(row.id),
    tenantId: String(row.tenant_id),
    name: String(row.name),
    role: String(row.role) as Role,
    ownerUserId,
    owner: row.owner_id === null ? null : { role: String(row.owner_role) as Role, disabled: Boolean(num(row.owner_disabled)) },
  };
}
