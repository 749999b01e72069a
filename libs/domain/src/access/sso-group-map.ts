import type { Role } from '../types';

/** One entry of the group mapping: members of `group` get `role` in `tenantId` (null: an operator). */
export interface GroupGrant {
  group: string;
  tenantId: string | null;
  role: Role;
}

/** What a single sign-on user is: the grant of its first mapped group. */
export interface SsoAccess {
  tenantId: string | null;
  role: Role;
  group: string;
}

const TENANT_ROLES = new Set<string>(['TENANT_ADMIN', 'TENANT_VIEWER']);

/**
 * Parses `BATON_SSO_GROUP_MAP` entries: `group=tenant:TENANT_ADMIN`, `group=tenant:TENANT_VIEWER`
 * or `group=OPERATOR`. Throws with the bad entry named. Order matters: a user in several mapped
 * groups gets the first entry's grant, so list the stronger grants first.
 */
export function parseGroupMap(entries: readonly string[]): GroupGrant[] {
  return entries.map((entry) => {
    const match = /^([^=]+)=(?:([A-Za-z0-9][A-Za-z0-9_-]{0,63}):(TENANT_ADMIN|TENANT_VIEWER)|(OPERATOR))$/.exec(entry.trim());
    if (!match) throw new Error(`"${entry}" is not group=tenant:TENANT_ADMIN, group=tenant:TENANT_VIEWER or group=OPERATOR`);
    const group = match[1].trim();
    return match[4] ? { group, tenantId: null, role: 'OPERATOR' } : { group, tenantId: match[2], role: match[3] as Role };
  });
}

/**
 * The access a user with `groups` gets (the first grant whose group it is in), or null when none
 * of its groups is mapped: such a user has no access, however it had before.
 */
export function accessForGroups(grants: readonly GroupGrant[], groups: readonly string[]): SsoAccess | null {
  const member = new Set(groups);
  const grant = grants.find((g) => member.has(g.group));
  if (!grant) return null;
  if (grant.tenantId !== null && !TENANT_ROLES.has(grant.role)) return null;
  return { tenantId: grant.tenantId, role: grant.role, group: grant.group };
}
