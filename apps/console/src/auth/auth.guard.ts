import { CanActivate, ExecutionContext, HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { HttpRequest as Request } from '../common/http';
import { badRequest, forbidden, unauthorized } from '../common/api-error';
import { Access, ACCESS_KEY, CONSOLE_ROUTE_KEY } from '../common/access';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../common/options';
import type { AuthenticatedRequest, Principal } from '../common/principal';
import { requestWeight, TenantAdmission, type ClosingResponse } from '../common/tenant-admission';
import { AuthService } from './auth.service';
import { CsrfTokenRefusedError } from './csrf-token-refused-error';
import { clearedSessionCookieLine, csrfRefusal, csrfTokenOf, requestCredential, secureCookieFor, type CookieSessionRequest } from './session-cookie';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a principal may call a route with the given access rule and HTTP method. */
export function isAllowed(principal: Principal, access: Exclude<Access, 'public'>, method: string): boolean {
  const isTenant = principal.tenantId !== null && (principal.role === 'TENANT_ADMIN' || principal.role === 'TENANT_VIEWER');
  switch (access) {
    case 'authenticated':
      return true;
    case 'operator':
      return principal.role === 'OPERATOR';
    case 'tenant-admin':
      return isTenant && principal.role === 'TENANT_ADMIN';
    case 'tenant':
      return isTenant && (principal.role === 'TENANT_ADMIN' || SAFE_METHODS.has(method.toUpperCase()));
  }
}

/** Whether a request's query names a tenant (`?tenantId=`): what only an operator's routes take. */
function namesTenant(url: string): boolean {
  return new URLSearchParams(url.split('?')[1] ?? '').has('tenantId');
}

/**
 * The console's global guard. Every route of a `@ConsoleController` needs a principal
 * (session token or API key) unless marked `@Public()`, and the principal's role must fit the
 * route's access rule. Routes of other controllers (an embedding app's) are left alone.
 *
 * The session token comes from `Authorization: Bearer` or, when no credential header is sent,
 * from the session cookie (session-cookie.ts). A cookie-authenticated write (any method but
 * GET/HEAD/OPTIONS) must carry the CSRF token of its session in `X-CSRF-Token` (403 otherwise); a
 * cookie of an ended or unknown session is a 401 that clears the cookie.
 *
 * A tenant's caller never names a tenant: its tenant is its credential's, on every route, so a
 * `?tenantId=` of its request is refused (400 naming it), never ignored or taken; operators'
 * routes take it as their filter.
 *
 * A tenant's request, once let through, waits for its place among the tenant's requests worked on
 * at once, weighed by the page it asks for (TenantAdmission.admit, requestWeight: 429 TENANT_BUSY
 * when too many wait), held until its answer has been sent or its client has gone (gone during
 * authentication: no place is taken).
 */
@Injectable()
export class ConsoleAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
    private readonly admission: TenantAdmission,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (!this.reflector.get<boolean>(CONSOLE_ROUTE_KEY, context.getClass())) return true;
    const access =
      this.reflector.getAllAndOverride<Access>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ?? 'tenant';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest & CookieSessionRequest>();
    const credential = requestCredential(request.headers);
    let principal: Principal | null;
    try {
      principal = await this.auth.authenticate(credential.headers);
    } catch (error) {
      // Only a session refused (ended, unknown, its user disabled) ends the browser's: a database
      // that failed to answer (a pooled connection HAProxy closed mid-failover) is a 500 that
      // keeps the cookie, or one lost read would log the user out (test/ha, the console kill).
      if (credential.cookieToken !== null && error instanceof HttpException && error.getStatus() === HttpStatus.UNAUTHORIZED) {
        const response = context.switchToHttp().getResponse<{ setHeader(name: string, value: string): unknown }>();
        response.setHeader('Set-Cookie', clearedSessionCookieLine(secureCookieFor(this.options.sessionCookieSecure, request)));
      }
      throw error;
    }
    if (!principal) throw unauthorized('Authentication required: log in (session cookie), or send "Authorization: Bearer <token>" or "X-API-Key: <key>"');
    if (credential.cookieToken !== null) {
      if (!SAFE_METHODS.has(request.method.toUpperCase())) {
        const refusal = csrfRefusal(credential.cookieToken, request.headers);
        if (refusal !== null) throw new CsrfTokenRefusedError(refusal);
      }
      request.csrfToken = csrfTokenOf(credential.cookieToken);
    }
    request.principal = principal;
    if (!isAllowed(principal, access, request.method)) {
      throw forbidden(
        access === 'operator'
          ? 'Operator role required'
          : access === 'tenant-admin' || principal.role === 'TENANT_VIEWER'
            ? 'TENANT_ADMIN role required'
            : 'This route is for tenant users',
      );
    }
    if (principal.tenantId !== null && namesTenant(request.url)) {
      throw badRequest([{ field: 'tenantId', reason: `not taken here: a tenant's session or API key acts on its own tenant (${principal.tenantId}); an operator names a tenant on /api/operator/… routes` }]);
    }
    if (principal.tenantId !== null) await this.admission.admit(principal.tenantId, context.switchToHttp().getResponse<ClosingResponse>(), requestWeight(request.url));
    return true;
  }
}
