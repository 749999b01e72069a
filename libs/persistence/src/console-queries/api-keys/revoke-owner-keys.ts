import type { EntityManager } from 'typeorm';
import type { Role } from '@baton/domain';
import { execute, placeholders } from '../../engine-queries/sql';
import { credentialsChanged } from './credential-changes';

/**
 * A user was disabled, deleted or demoted: its live API keys of the roles it may no longer hold
 * are revoked, in the transaction of that change:
 *
 *   UPDATE api_keys SET revoked_at = ? WHERE owner_user_id = ? AND revoked_at IS NULL AND role IN (…)
 *
 * Written down rather than only refused at authentication, so the key stays dead when the user is
 * enabled or promoted again, and the key list shows when it died. Uses ix_api_keys_owner.
 * Returns how many keys it revoked.
 */
export async function revokeOwnerKeys(manager: EntityManager, input: { ownerUserId: number; roles: readonly Role[]; now: number }): Promise<number> {
  if (input.roles.length === 0) return 0;
  credentialsChanged();
  const { affected } = await execute(
    manager,
    `UPDATE api_keys SET revoked_at = ? WHERE owner_user_id = ? AND revoked_at IS NULL AND role IN (${placeholders(input.roles.length)})`,
    [input.now, input.ownerUserId, ...input.roles],
  );
  return affected;
}
