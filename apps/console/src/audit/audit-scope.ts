import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../common/clock';
import type { AuditActor } from './audit-actor';

/** What the request being served knows about its audit record. */
export interface AuditScope {
  actor: AuditActor | null;
  action: string | null;
  clock: Clock;
  /** Records written so far (auditScopes checks it is exactly one for an @Audited route). */
  recorded: number;
  /** The request changed nothing (auditNoChange): no record is expected. */
  unchanged?: boolean;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/** Runs `work` with `scope` as the request's audit scope (auditScopes, runAudited). */
export function runInAuditScope<T>(scope: AuditScope, work: () => T): T {
  return scopes.run(scope, work);
}

export function currentAuditScope(): AuditScope | undefined {
  return scopes.getStore();
}

/** Counts a record written for the current request (by auditChange, or by recordAudit called explicitly). */
export function countAuditRecord(): void {
  const scope = scopes.getStore();
  if (scope) scope.recorded++;
}


/** The name of who is making the current request's change (for records kept beside the audit log, such as task versions); null outside a request. */
export function currentActorName(): string | null {
  return scopes.getStore()?.actor?.name ?? null;
}
