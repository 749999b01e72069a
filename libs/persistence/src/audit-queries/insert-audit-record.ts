import type { EntityManager } from 'typeorm';
import type { AuditActorKind } from '../entities';
import { deferStatement } from '../engine-queries/riders';

/** A change as the audit log keeps it; `before`/`after` arrive already redacted (redact, @baton/domain). */
export interface NewAuditRecord {
  at: number;
  tenantId: string | null;
  actorKind: AuditActorKind;
  actorName: string;
  actorUserId: number | null;
  actorApiKeyId: number | null;
  sourceAddress: string | null;
  action: string;
  objectType: string;
  objectId: string | null;
  before: unknown;
  after: unknown;
}

/**
 * The most a before/after value keeps, in UTF-8 bytes: below TEXT's 65,535 on MySQL. A bigger one
 * (a batch of a thousand tasks) is kept as `{ truncated: true, bytes }`, so a record never makes
 * its change fail.
 */
export const AUDIT_VALUE_MAX_BYTES = 60_000;

function stored(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes <= AUDIT_VALUE_MAX_BYTES ? json : JSON.stringify({ truncated: true, bytes });
}

/**
 * Appends records to the audit log, on the manager of the change's transaction — so a record
 * exists if and only if its change committed (a refused or rolled-back request leaves none):
 *
 *   INSERT INTO audit_log (at, tenant_id, actor_kind, actor_name, actor_user_id, actor_api_key_id,
 *                          source_address, action, object_type, object_id, before_json, after_json)
 *   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), …
 *
 * Plain inserts at the end of the auto-increment index: no read, no lock on other rows, and no
 * round trip of their own: in a transaction on MySQL the INSERT is deferred, riding with the
 * transaction's COMMIT (engine-queries/riders.ts) — one for the records of every
 * submission a batch writes together (apps/console/src/submissions).
 */
export async function insertAuditRecords(manager: EntityManager, records: readonly NewAuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  await deferStatement(
    manager,
    `INSERT INTO audit_log (at, tenant_id, actor_kind, actor_name, actor_user_id, actor_api_key_id, source_address, action, object_type, object_id, before_json, after_json)
     VALUES ${records.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    records.flatMap((record) => [
      record.at,
      record.tenantId,
      record.actorKind,
      record.actorName.slice(0, 200),
      record.actorUserId,
      record.actorApiKeyId,
      record.sourceAddress === null ? null : record.sourceAddress.slice(0, 64),
      record.action,
      record.objectType,
      record.objectId === null ? null : record.objectId.slice(0, 128),
      stored(record.before),
      stored(record.after),
    ]),
  );
}
