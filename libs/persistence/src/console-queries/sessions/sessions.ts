import { LessThan, Not, type EntityManager } from 'typeorm';
import { SessionEntity, UserEntity } from '../../entities';

/**
 * A login's new session, and its user's expired ones gone (housekeeping on each login):
 *
 *   DELETE FROM sessions WHERE user_id = ? AND expires_at < ?
 *   INSERT INTO sessions (user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)
 */
export async function startSession(manager: EntityManager, input: { userId: number; tokenHash: string; now: number; expiresAt: number }): Promise<void> {
  await manager.delete(SessionEntity, { userId: input.userId, expiresAt: LessThan(input.now) });
  await manager.insert(SessionEntity, { userId: input.userId, tokenHash: input.tokenHash, createdAt: input.now, expiresAt: input.expiresAt });
}

/**
 * Ends one session (logout):
 *
 *   DELETE FROM sessions WHERE id = ?
 */
export async function endSession(manager: EntityManager, id: number): Promise<void> {
  await manager.delete(SessionEntity, { id });
}

/**
 * Ends a user's sessions (disabled, deleted, password set), but the one it calls from if given:
 *
 *   DELETE FROM sessions WHERE user_id = ? [AND id <> ?]
 */
export async function endUserSessions(manager: EntityManager, userId: number, keepSessionId: number | null = null): Promise<void> {
  await manager.delete(SessionEntity, keepSessionId === null ? { userId } : { userId, id: Not(keepSessionId) });
}

/**
 * Ends the sessions of a tenant's password users (the tenant now requires single sign-on):
 *
 *   DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE tenant_id = ? AND sso_provider IS NULL)
 */
export async function endPasswordSessionsOfTenant(manager: EntityManager, tenantId: string): Promise<void> {
  const users = manager.createQueryBuilder(UserEntity, 'u').select('u.id').where('u.tenant_id = :tenantId AND u.sso_provider IS NULL', { tenantId });
  await manager.createQueryBuilder().delete().from(SessionEntity).where(`user_id IN (${users.getQuery()})`).setParameters(users.getParameters()).execute();
}
