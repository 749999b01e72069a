/** The audit log's API for the console's services (and for login/SSO/config-apply code that knows its actor). */
export { actorOf, anonymousActor, type AuditActor } from './audit-actor';
export { currentActorName } from './audit-scope';
export { Audited, auditChange, auditNoChange, AUDIT_EXEMPT_OPENAPI_EXTENSION, AUDIT_OPENAPI_EXTENSION, deferredAudit, NotAudited, runAudited, type DeferredAudit } from './audit-context';
export { recordAudit, recordAudits, type AuditChange, type AuditEntry } from './record-audit';
export { AuditModule } from './audit.module';
export { auditScopes } from './audit-scopes';
