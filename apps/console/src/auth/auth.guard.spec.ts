import { EventEmitter } from 'node:events';
import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import type { Role } from '@baton/domain';
import { unauthorized } from '../common/api-error';
import type { ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { TenantAdmission } from '../common/tenant-admission';
import { TenantBusyError } from '../common/tenant-busy-error';
import { ConsoleAuthGuard, isAllowed } from './auth.guard';
import type { AuthService } from './auth.service';
import { SESSION_COOKIE } from './session-cookie';

const principal = (role: Role, tenantId: string | null): Principal => ({
  kind: 'session',
  username: 'u',
  role,
  tenantId,
  userId: 1,
  actsForUserId: 1,
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

describe('console guard and the session cookie', () => {
  /** A cookie-authenticated GET through the guard, its session check answering `outcome`; the Set-Cookie lines it wrote. */
  async function throughGuard(outcome: Error): Promise<string[]> {
    const written: string[] = [];
    const auth = { authenticate: () => Promise.reject(outcome) } as unknown as AuthService;
    const reflector = { get: () => true, getAllAndOverride: () => 'tenant' } as unknown as Reflector;
    const guard = new ConsoleAuthGuard(reflector, auth, { sessionCookieSecure: 'auto' } as unknown as ResolvedConsoleOptions, new TenantAdmission());
    const request = { method: 'GET', headers: { cookie: `${SESSION_COOKIE}=token-1` }, socket: {} };
    const context = {
      getType: () => 'http',
      getClass: () => Object,
      getHandler: () => throughGuard,
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ setHeader: (name: string, value: string) => written.push(`${name}: ${value}`) }) }),
    } as unknown as ExecutionContext;
    await expect(guard.canActivate(context)).rejects.toBe(outcome);
    return written;
  }

  it('clears the cookie of a session refused (401), and keeps it when the check failed (the database did not answer)', async () => {
    expect(await throughGuard(unauthorized('Session expired or unknown; log in again'))).toEqual([expect.stringMatching(new RegExp(`^Set-Cookie: ${SESSION_COOKIE}=;`))]);
    expect(await throughGuard(new Error('Connection lost: The server closed the connection.'))).toEqual([]);
  });
});

describe("console guard and the tenant's admission", () => {
  /** An API-key GET of acme through the guard, answered on `response`. */
  function throughGuard(admission: TenantAdmission, response: EventEmitter & { closed: boolean }, url = '/api/tasks'): Promise<boolean> {
    const auth = { authenticate: () => Promise.resolve(admin) } as unknown as AuthService;
    const reflector = { get: () => true, getAllAndOverride: () => 'tenant' } as unknown as Reflector;
    const guard = new ConsoleAuthGuard(reflector, auth, { sessionCookieSecure: 'auto' } as unknown as ResolvedConsoleOptions, admission);
    const request = { method: 'GET', url, headers: { 'x-api-key': 'bk_x' }, socket: {} };
    const context = {
      getType: () => 'http',
      getClass: () => Object,
      getHandler: () => throughGuard,
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
    } as unknown as ExecutionContext;
    return guard.canActivate(context);
  }
  const response = (closed: boolean) => Object.assign(new EventEmitter(), { closed });

  it('holds a place until the answer closes', async () => {
    const admission = new TenantAdmission();
    const answer = response(false);
    expect(await throughGuard(admission, answer)).toBe(true);
    expect(admission.of('acme')).toEqual({ inFlight: 1, waiting: 0 });
    answer.closed = true;
    answer.emit('close');
    expect(admission.of('acme')).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('takes the places of the page a list call asks for (a place per 50 items)', async () => {
    const admission = new TenantAdmission();
    const answer = response(false);
    expect(await throughGuard(admission, answer, '/api/runs?limit=200')).toBe(true);
    expect(admission.of('acme')).toEqual({ inFlight: 4, waiting: 0 });
    answer.closed = true;
    answer.emit('close');
    expect(admission.of('acme')).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('takes no place for a request whose client left while it was authenticated (its close came before: the place would never be given back)', async () => {
    const admission = new TenantAdmission();
    await expect(throughGuard(admission, response(true))).rejects.toBeInstanceOf(TenantBusyError);
    expect(admission.of('acme')).toEqual({ inFlight: 0, waiting: 0 });
  });
});
