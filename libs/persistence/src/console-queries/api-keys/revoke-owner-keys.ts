import type { EntityManager } from 'typeorm';
import type { Role } from '@baton/domain';
import { dialectOf, execute, placeholders } from '../../engine-queries/sql';
import { credentialsChanged } from './credential-changes';

/**
 * A user was disabled, deleted or demoted: its live API keys of the roles it may no longer hold
 * are revoked, in the transaction of that change:
 *
 *   SELECT id FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL AND role IN (…) FOR UPDATE
 *   UPDATE api_keys SET revoked_at = ? WHERE id IN (…)
 *
 * Written down rather than only refused at authentication, so the key stays dead when the user is
 * enabled or promoted again, and the key list shows when it died. Uses ix_api_keys_owner. Returns
 * the ids of the keys it revoked, for the change's audit record (one UPDATE alone could not say
 * which: the record named none of them). The rows are locked by the read (MySQL; SQLite's
 * transaction is the lock), so a concurrent revoke cannot make the list wrong.
 */
export async function revokeOwnerKeys(manager: EntityManager, input: { ownerUserId: number; roles: readonly Role[]; now: number }): Promise<number[]> {
  if (input.roles.length === 0) return [];
  const live = await execute<{ id: number | string }>(
    manager,
    `SELECT id FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL AND role IN (${placeholders(input.roles.length)}) ORDER BY id${dialectOf(manager) === 'mysql' ? ' FOR UPDATE' : ''}`,
    [input.ownerUserId, ...input.roles],
  );
  const ids = live.rows.map((r) => Number(r.id));
  if (ids.length === 0) return [];
  credentialsChanged();
  await execute(manager, `UPDATE api_keys SET revoked_at = ? WHERE id IN (${placeholders(ids.length)})`, [input.now, ...ids]);
  return ids;
}
