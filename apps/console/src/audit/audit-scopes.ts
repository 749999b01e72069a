import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock';
import type { AuthenticatedRequest } from '../common/principal';
import { actorOf, type AuditActor } from './audit-actor';
import { runInAuditScope, type AuditScope } from './audit-scope';

interface AddressedRequest extends AuthenticatedRequest {
  ip?: string;
  method: string;
  url: string;
}

interface FinishingResponse {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
}

/**
 * An HTTP request's audit scope. Made before the auth guard runs, so the actor is read from the
 * request's principal when a service first asks for it (after the guard); the action is named by
 * the route's @Audited (AuditActionGuard).
 */
class RequestAuditScope implements AuditScope {
  action: string | null = null;
  recorded = 0;
  unchanged?: boolean;
  private known: AuditActor | null = null;

  constructor(
    private readonly request: AddressedRequest,
    readonly clock: Clock,
  ) {}

  get actor(): AuditActor | null {
    if (this.known === null && this.request.principal) this.known = actorOf(this.request.principal, this.request.ip ?? null);
    return this.known;
  }
}

/**
 * Express middleware giving each HTTP request its audit scope (who, from where, which action) for
 * the services' auditChange calls, and checking, once a request has been answered with success
 * (status below 400), that an @Audited route wrote exactly one record (none when it said
 * auditNoChange) and any other route none; a mismatch is logged as an error.
 *
 * Middleware rather than a Nest interceptor: any global interceptor makes Nest wrap every request
 * in rxjs observables and two AsyncResource.bind calls (each defining deprecation getters). With
 * the interceptor the console spent 0.43–0.55 ms of CPU on a `GET /api/auth/me` (no SQL), with
 * this 0.21–0.27 ms (`npm run bench -- console-request`, 3,000 requests, two runs each).
 */
export function auditScopes(clock: Clock): (request: AddressedRequest, response: FinishingResponse, next: () => void) => void {
  const logger = new Logger('Audit');
  return (request, response, next) => {
    const scope = new RequestAuditScope(request, clock);
    response.once('finish', () => {
      if (response.statusCode >= 400) return;
      const problem = recordsProblem(scope);
      if (problem) logger.error(`${request.method} ${request.url} ${problem}`);
    });
    runInAuditScope(scope, next);
  };
}

/** What is wrong with the records a request that succeeded wrote (null: nothing). */
export function recordsProblem(scope: Pick<AuditScope, 'action' | 'recorded' | 'unchanged'>): string | null {
  if (scope.action === null) return scope.recorded > 0 ? `wrote ${scope.recorded} audit records but is not @Audited` : null;
  const expected = scope.unchanged ? 0 : 1;
  return scope.recorded === expected ? null : `(${scope.action}) wrote ${scope.recorded} audit records, not ${expected}`;
}
