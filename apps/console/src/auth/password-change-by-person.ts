import { forbidden } from '../common/api-error';
import type { Principal } from '../common/principal';

/**
 * Changing a password — one's own, or an administrator another user's — is a person's act, done
 * in a session: an API key is refused on every route that changes one, whatever its role and
 * whatever it proves (its owner's current password included). A leaked key must not become a
 * login of its owner, nor lock another person out of theirs.
 */
export function refuseApiKeyPasswordChange(principal: Pick<Principal, 'kind'>): void {
  if (principal.kind === 'apiKey') throw forbidden('An API key cannot change a password (a person changes one, in a session): log in as a user to change it');
}
