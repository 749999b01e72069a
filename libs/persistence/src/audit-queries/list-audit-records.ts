import type { EntityManager } from 'typeorm';
import type { AuditActorKind } from '../entities';
import { execute, placeholders } from '../engine-queries/sql';

export interface AuditFilter {
  /** A tenant's records only; undefined: every tenant's (the operator's view). */
  tenantId?: string;
  actorName?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  /** Inclusive lower and exclusive upper bound on `at` (epoch ms). */
  from?: number;
  to?: number;
  /** Records after this one in the list's order (at desc, id desc): the page cursor. */
  after?: { at: number; id: number };
  limit: number;
}

export interface AuditRow {
  id: number;
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

interface RawAuditRow {
  id: number | string;
  at: number | string;
  tenant_id: string | null;
  actor_kind: AuditActorKind;
  actor_name: string;
  actor_user_id: number | null;
  actor_api_key_id: number | null;
  source_address: string | null;
  action: string;
  object_type: string;
  object_id: string | null;
  before_json: string | null;
  after_json: string | null;
}

/**
 * A page of the audit log, newest first:
 *
 *   SELECT … FROM audit_log
 *    WHERE tenant_id = ? [AND actor_name = ?] [AND action = ?] [AND object_type = ? [AND object_id = ?]]
 *          [AND at >= ?] [AND at < ?] [AND (at < ? OR (at = ? AND id < ?))]
 *    ORDER BY at DESC, id DESC LIMIT ?
 *
 * The tenant filter is the first condition whenever a tenant reads (the indexes all start with
 * tenant_id), and only the operator's route passes no tenant. Each filter of the audit page is
 * an index prefix followed by (at, id) (migration 1796620000000-audit-log), so a page reads
 * `limit` index entries.
 */
export async function listAuditRecords(manager: EntityManager, filter: AuditFilter): Promise<AuditRow[]> {
  const { sql, params } = auditListSql(filter);
  const { rows } = await execute<RawAuditRow>(manager, sql, params);
  return rows.map(auditRowOf);
}

/** The page query of listAuditRecords, for its plan test (audit-queries.spec.ts). */
export function auditListSql(filter: AuditFilter): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.tenantId !== undefined) add('tenant_id = ?', filter.tenantId);
  if (filter.actorName !== undefined) add('actor_name = ?', filter.actorName);
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.objectType !== undefined) add('object_type = ?', filter.objectType);
  if (filter.objectId !== undefined) add('object_id = ?', filter.objectId);
  if (filter.from !== undefined) add('at >= ?', filter.from);
  if (filter.to !== undefined) add('at < ?', filter.to);
  if (filter.after !== undefined) {
    where.push('(at < ? OR (at = ? AND id < ?))');
    params.push(filter.after.at, filter.after.at, filter.after.id);
  }
  return {
    sql: `SELECT ${COLUMNS} FROM audit_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY at DESC, id DESC LIMIT ?`,
    params: [...params, filter.limit],
  };
}

const COLUMNS = 'id, at, tenant_id, actor_kind, actor_name, actor_user_id, actor_api_key_id, source_address, action, object_type, object_id, before_json, after_json';

/**
 * Records by id, for the webhook sender's AUDIT events:
 *
 *   SELECT … FROM audit_log WHERE id IN (…)
 */
export async function listAuditRecordsById(manager: EntityManager, ids: readonly number[]): Promise<AuditRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await execute<RawAuditRow>(manager, `SELECT ${COLUMNS} FROM audit_log WHERE id IN (${placeholders(ids.length)})`, [...ids]);
  return rows.map(auditRowOf);
}

function auditRowOf(r: RawAuditRow): AuditRow {
  return {
    id: Number(r.id),
    at: Number(r.at),
    tenantId: r.tenant_id,
    actorKind: r.actor_kind,
    actorName: r.actor_name,
    actorUserId: r.actor_user_id === null ? null : Number(r.actor_user_id),
    actorApiKeyId: r.actor_api_key_id === null ? null : Number(r.actor_api_key_id),
    sourceAddress: r.source_address,
    action: r.action,
    objectType: r.object_type,
    objectId: r.object_id,
    before: r.before_json === null ? null : JSON.parse(r.before_json),
    after: r.after_json === null ? null : JSON.parse(r.after_json),
  };
}
