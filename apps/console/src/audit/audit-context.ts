import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { AuditActionGuard } from './audit-action.guard';
import { currentAuditScope, runInAuditScope } from './audit-scope';
import type { AuditActor } from './audit-actor';
import { recordAudit, type AuditChange } from './record-audit';

/** The OpenAPI extension naming a route's audit action: how the route walk (test/console/audit-coverage) finds the writes. */
export const AUDIT_OPENAPI_EXTENSION = 'x-audit-action';

/**
 * Marks a state-changing route: it records exactly one audit record, `action`, per change.
 * Wiring a route into the audit log is two lines:
 *
 *   @Post(':id/copy') @Audited('task.copy')                      // on the controller's route
 *   await auditChange(em, { tenantId, objectType: 'task', objectId: copy.id, after: copy });
 *                                                                 // in the service, inside the change's transaction
 *
 * The actor (user or API key, source address), time and action come from the request (its
 * audit scope, auditScopes; the action put there by the route's AuditActionGuard); a route that
 * ends with no record, or with two, is logged as an error and fails the coverage test.
 */
export const Audited = (action: string) => applyDecorators(UseGuards(new AuditActionGuard(action)), ApiExtension(AUDIT_OPENAPI_EXTENSION, action));

/** The OpenAPI extension of a POST that changes nothing (a preview, a test message): it says why, and the route walk expects no record. */
export const AUDIT_EXEMPT_OPENAPI_EXTENSION = 'x-audit-exempt';

/** Marks a non-GET route that changes no state, saying why; it records nothing. */
export const NotAudited = (why: string) => ApiExtension(AUDIT_EXEMPT_OPENAPI_EXTENSION, why);

/**
 * Records the change the current route makes, in the transaction `manager` belongs to: actor,
 * time and action from the request (an @Audited route called by a principal).
 *
 * Called outside any console request — the embedded app's seeding, an engine creating the groups
 * it serves at start-up — it records nothing: those changes are not made through the API, and
 * have no one to name. Inside a request, a route that is not @Audited (or has no principal) is a
 * programming error, and fails loudly.
 */
export async function auditChange(manager: EntityManager, change: AuditChange): Promise<void> {
  const scope = currentAuditScope();
  if (!scope) return;
  if (!scope.actor || !scope.action) throw new Error('auditChange is for an @Audited route called by an authenticated principal');
  await recordAudit(manager, { ...change, actor: scope.actor, action: scope.action, at: scope.clock.now() });
}

/**
 * Says the current @Audited request changed nothing (a bulk action none of whose ids it could act
 * on): it records nothing, and its audit scope expects none — a tenant cannot make the console
 * log error lines at will by sending such requests.
 */
export function auditNoChange(): void {
  const scope = currentAuditScope();
  if (scope) scope.unchanged = true;
}

/** The current request's audit, taken along to a change written later outside the request (a group commit). */
export interface DeferredAudit {
  actor: AuditActor;
  action: string;
  /** Counts the record, once written, against its request (auditScopes checks there is one). */
  counted(): void;
}

/**
 * The actor and action of the current @Audited request, for a change its service hands to a
 * writer that runs outside the request's async context (SubmissionsService's group commit), which
 * writes the record with recordAudits and calls `counted`. Null outside a request, as auditChange
 * records nothing there; inside one that is not @Audited, a programming error as there.
 */
export function deferredAudit(): DeferredAudit | null {
  const scope = currentAuditScope();
  if (!scope) return null;
  if (!scope.actor || !scope.action) throw new Error('deferredAudit is for an @Audited route called by an authenticated principal');
  return { actor: scope.actor, action: scope.action, counted: () => scope.recorded++ };
}

/**
 * Runs `work` as an @Audited route is run — its auditChange calls record `action` by `actor` —
 * for a change that comes through another door than an HTTP route (a socket.io event): every
 * change made through the console's APIs is recorded, whatever the transport.
 */
export function runAudited<T>(actor: AuditActor, action: string, clock: Clock, work: () => Promise<T>): Promise<T> {
  return runInAuditScope({ actor, action, clock, recorded: 0 }, work);
}
