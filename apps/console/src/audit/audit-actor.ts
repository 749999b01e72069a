import type { AuditActorKind } from '@baton/persistence';
import type { Principal } from '../common/principal';

/** Who made a change, as the audit log names them. */
export interface AuditActor {
  kind: AuditActorKind;
  /** Username, `api-key:<name>`, or for a failed login the name it gave. */
  name: string;
  userId: number | null;
  apiKeyId: number | null;
  /** The client's address (the request's `ip`); null when unknown. */
  address: string | null;
}

/** The actor behind an authenticated request. */
export function actorOf(principal: Principal, address: string | null): AuditActor {
  return {
    kind: principal.kind === 'apiKey' ? 'apiKey' : 'user',
    name: principal.username,
    userId: principal.userId,
    apiKeyId: principal.apiKeyId,
    address,
  };
}

/** Someone not (yet) authenticated: a failed login, named by what it claimed to be. */
export function anonymousActor(claimedName: string, address: string | null): AuditActor {
  return { kind: 'anonymous', name: claimedName, userId: null, apiKeyId: null, address };
}
