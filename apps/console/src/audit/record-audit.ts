import type { EntityManager } from 'typeorm';
import { redact } from '@baton/domain';
import { insertAuditRecords, queueAuditWebhookDeliveries, takesAuditWebhooks, type NewAuditRecord } from '@baton/persistence';
import type { AuditActor } from './audit-actor';
import { countAuditRecord } from './audit-scope';

/** What changed: the object, and its value before and after (each redacted here, whatever the caller passes). */
export interface AuditChange {
  /** Null: a change of no tenant (an engine group). */
  tenantId: string | null;
  objectType: string;
  objectId: string | number | null;
  before?: unknown;
  after?: unknown;
}

/** A complete audit entry: who, when, what. */
export interface AuditEntry extends AuditChange {
  actor: AuditActor;
  at: number;
  /** `<object>.<verb>`, e.g. `task.update`, `auth.login`, `auth.login-failed`, `config.apply`. */
  action: string;
}

/**
 * Appends one audit record in the transaction `manager` belongs to — call it inside the change's
 * transaction, so the record and the change commit or roll back together — and queues it as an
 * AUDIT event for the tenant's webhook channels that take them. This is the explicit
 * form (for code that knows its actor: logins, SSO, config apply); a route's service normally
 * calls `auditChange` (audit-context.ts), which fills actor, time and action from the request.
 */
export async function recordAudit(manager: EntityManager, entry: AuditEntry): Promise<void> {
  countAuditRecord();
  await insertAuditRecords(manager, [stored(entry)]);
  // Right after the insert, on its connection: the queue reads the record's id from it.
  if (entry.tenantId !== null) await queueAuditWebhookDeliveries(manager, { tenantId: entry.tenantId, now: entry.at });
}

/**
 * Records of one tenant's changes written together (the submissions of a group commit), each
 * with its own actor, in their change's transaction: one INSERT for all when no webhook channel of
 * the tenant takes AUDIT events; one record at a time otherwise, each queued as recordAudit does.
 * The caller counts each record against its request (audit-context.ts deferredAudit). `takes`
 * answers whether a channel takes them (default: read now, takesAuditWebhooks; the submissions
 * keep that answer a second).
 */
export async function recordAudits(
  manager: EntityManager,
  tenantId: string,
  entries: readonly AuditEntry[],
  takes: (manager: EntityManager, tenantId: string) => Promise<boolean> = takesAuditWebhooks,
): Promise<void> {
  if (entries.length === 0) return;
  if (!(await takes(manager, tenantId))) return insertAuditRecords(manager, entries.map(stored));
  for (const entry of entries) {
    await insertAuditRecords(manager, [stored(entry)]);
    await queueAuditWebhookDeliveries(manager, { tenantId, now: entry.at });
  }
}

/** An entry as the audit log keeps it (before/after redacted here, whatever the caller passes). */
function stored(entry: AuditEntry): NewAuditRecord {
  return {
    at: entry.at,
    tenantId: entry.tenantId,
    actorKind: entry.actor.kind,
    actorName: entry.actor.name,
    actorUserId: entry.actor.userId,
    actorApiKeyId: entry.actor.apiKeyId,
    sourceAddress: entry.actor.address,
    action: entry.action,
    objectType: entry.objectType,
    objectId: entry.objectId === null ? null : String(entry.objectId),
    before: entry.before === undefined ? null : redact(entry.before),
    after: entry.after === undefined ? null : redact(entry.after),
  };
}
