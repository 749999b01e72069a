import type { EntityManager } from 'typeorm';
import { UserEntity } from '../../entities';
import { credentialsChanged } from '../api-keys/credential-changes';

/**
 * A new user (its name unique within its login tenant: uq_users_login answers a race):
 *
 *   INSERT INTO users (username, password_hash, role, tenant_id, login_tenant, disabled, created_at) VALUES (…)
 */
export async function insertUser(manager: EntityManager, row: UserEntity): Promise<void> {
  await manager.insert(UserEntity, row);
}

/**
 * Changes a user found in the caller's scope first (findUser): role, disabled, or password hash;
 * or, for a single sign-on user kept in step with its provider, its tenant, name and role.
 *
 *   UPDATE users SET role = ?, disabled = ? | password_hash = ? | tenant_id = ?, login_tenant = ?, username = ?, role = ? WHERE id = ?
 */
export async function updateUser(
  manager: EntityManager,
  id: number,
  fields: Partial<Pick<UserEntity, 'role' | 'disabled' | 'passwordHash' | 'tenantId' | 'loginTenant' | 'username'>>,
): Promise<void> {
  // A key's owner's role or state is part of the key check (findPresentedApiKey).
  credentialsChanged();
  await manager.update(UserEntity, { id }, fields);
}

/**
 * Deletes a user found in the caller's scope first (its sessions and keys go in the same transaction):
 *
 *   DELETE FROM users WHERE id = ?
 */
export async function deleteUser(manager: EntityManager, id: number): Promise<void> {
  credentialsChanged();
  await manager.delete(UserEntity, { id });
}
