import type { EntityManager } from 'typeorm';
import type { Role } from '@baton/domain';
import { execute, num } from '../../engine-queries/sql';

/** A session as a request presents it, with its user as the user is now. */
export interface PresentedSession {
  id: number;
  expiresAt: number;
  user: { id: number; username: string; role: Role; tenantId: string | null; disabled: boolean; ssoProvider: string | null };
}

/**
 * The session of a bearer token (stored as its SHA-256 only) and its user, or null when there is
 * no such session or its user is gone:
 *
 *   SELECT s.id, s.expires_at, u.id, u.username, u.role, u.tenant_id, u.disabled, u.sso_provider
 *     FROM sessions s JOIN users u ON u.id = s.user_id
 *    WHERE s.token_hash = ?                                       -- uq_sessions_token_hash
 *
 * One statement for what every console request checks (it was two: session, then user).
 */
export async function findSessionUser(manager: EntityManager, tokenHash: string): Promise<PresentedSession | null> {
  const { rows } = await execute(
    manager,
    `SELECT s.id, s.expires_at, u.id AS user_id, u.username, u.role, u.tenant_id, u.disabled, u.sso_provider
       FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = ?`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: num(row.id),
    expiresAt: num(row.expires_at),
    user: {
      id: num(row.user_id),
      username: String(row.username),
      role: String(row.role) as Role,
      tenantId: row.tenant_id === null ? null : String(row.tenant_id),
      disabled: Boolean(num(row.disabled)),
      ssoProvider: row.sso_provider === null ? null : String(row.sso_provider),
    },
  };
}
