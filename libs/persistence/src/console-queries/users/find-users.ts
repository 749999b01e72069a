import type { EntityManager } from 'typeorm';
import { UserEntity } from '../../entities';
import { anyTenant } from '../tenant-scope';

/**
 * Users by id: a tenant admin's of its tenant, the operator's of any (`tenantId` undefined).
 * Another tenant's user is as absent as a missing one:
 *
 *   SELECT * FROM users WHERE id = ? [AND tenant_id = ?]                          -- primary key
 */
export function findUser(manager: EntityManager, tenantId: string | undefined, id: number): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, anyTenant(tenantId, { id }));
}

/**
 * A tenant's users, or (operator, `tenantId` undefined) every user, by id:
 *
 *   SELECT * FROM users [WHERE tenant_id = ?] ORDER BY id
 */
export function listUsers(manager: EntityManager, tenantId: string | undefined): Promise<UserEntity[]> {
  return manager.find(UserEntity, { where: anyTenant(tenantId, {}), order: { id: 'ASC' } });
}

/**
 * The account a login names: a user name within its login tenant (`''` for the operators),
 * the unique key names are checked against too:
 *
 *   SELECT * FROM users WHERE login_tenant = ? AND username = ?                   -- uq_users_login
 */
export function findLoginUser(manager: EntityManager, loginTenant: string, username: string): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { loginTenant, username });
}

/**
 * The user a single sign-on provider vouched for, by the provider's stable id of it:
 *
 *   SELECT * FROM users WHERE sso_provider = ? AND sso_subject = ?                -- uq_users_sso
 */
export function findSsoUser(manager: EntityManager, ssoProvider: string, ssoSubject: string): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { ssoProvider, ssoSubject });
}

/**
 * The user behind a session or an API key, by id (authentication; the session or key gave the id):
 *
 *   SELECT * FROM users WHERE id = ?
 */
export function findUserById(manager: EntityManager, id: number): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { id });
}
