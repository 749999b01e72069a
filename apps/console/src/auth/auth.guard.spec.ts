import { describe, expect, it } from 'vitest';
import type { Role } from '@baton/domain';
import type { Principal } from '../common/principal';
import { isAllowed } from './auth.guard';

const principal = (role: Role, tenantId: string | null): Principal => ({
  kind: 'session',
  username: 'u',
  role,
  tenantId,
  userId: 1,
  sessionId: 1,
  apiKeyId: null,
  ssoProvider: null,
});

const operator = principal('OPERATOR', null);
const admin = principal('TENANT_ADMIN', 'acme');
const viewer = principal('TENANT_VIEWER', 'acme');

describe('console access rules', () => {
  it('keeps operators on operator routes and tenants off them', () => {
    expect(isAllowed(operator, 'operator', 'POST')).toBe(true);
    expect(isAllowed(admin, 'operator', 'GET')).toBe(false);
    expect(isAllowed(viewer, 'operator', 'GET')).toBe(false);
    expect(isAllowed(operator, 'tenant', 'GET')).toBe(false);
    expect(isAllowed(operator, 'tenant-admin', 'GET')).toBe(false);
  });

  it('lets a viewer read and never write', () => {
    for (const method of ['GET', 'HEAD', 'get']) expect(isAllowed(viewer, 'tenant', method)).toBe(true);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(isAllowed(viewer, 'tenant', method)).toBe(false);
    expect(isAllowed(viewer, 'tenant-admin', 'GET')).toBe(false);
  });

  it('lets an admin do everything of its tenant', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(isAllowed(admin, 'tenant', method)).toBe(true);
      expect(isAllowed(admin, 'tenant-admin', method)).toBe(true);
    }
  });

  it('refuses a tenant role without a tenant (corrupt row)', () => {
    expect(isAllowed(principal('TENANT_ADMIN', null), 'tenant', 'GET')).toBe(false);
  });

  it('lets anyone authenticated reach "authenticated" routes', () => {
    for (const p of [operator, admin, viewer]) expect(isAllowed(p, 'authenticated', 'POST')).toBe(true);
  });
});
