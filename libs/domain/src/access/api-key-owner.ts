import type { Role } from '../types';

/** How much each role may do: each one may do all that the roles below it may. */
const REACH: Readonly<Record<Role, number>> = { OPERATOR: 3, TENANT_ADMIN: 2, TENANT_VIEWER: 1 };

/** A user as the keys it made see it. */
export interface KeyOwner {
  role: Role;
  disabled: boolean;
}

/**
 * Whether a user may hold an API key of `keyRole`: a key acts for the user who made it, so it
 * never does more than that user may do now. An enabled operator or tenant admin holds keys of
 * either tenant role, a viewer viewer keys only, a disabled user none.
 */
export function mayHoldKey(owner: KeyOwner, keyRole: Role): boolean {
  return !owner.disabled && REACH[owner.role] >= REACH[keyRole];
}

/** The key roles a user of `role` may no longer hold (every role when it is disabled or gone): its keys of these roles are revoked. */
export function keyRolesBeyond(owner: KeyOwner | null): Role[] {
  const roles: Role[] = ['TENANT_ADMIN', 'TENANT_VIEWER'];
  return owner === null ? roles : roles.filter((role) => !mayHoldKey(owner, role));
}
