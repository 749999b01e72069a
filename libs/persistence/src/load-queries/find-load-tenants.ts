import type { EntityManager } from 'typeorm';
import { execute, numOrNull, placeholders } from '../engine-queries/sql';

/** A tenant as the load board and the backlog alarm need it. */
export interface LoadTenantRow {
  id: string;
  engineGroup: string;
  /** Null: the engines' BATON_BACKLOG_ALARM_MS; 0: no BACKLOG_LATE alarm. */
  backlogAlarmMs: number | null;
  backlogLateSince: number | null;
}

/**
 * Every tenant, those of some engine groups, or one:
 *
 *   SELECT id, engine_group, backlog_alarm_ms, backlog_late_since FROM tenants [WHERE engine_group IN (…) | WHERE id = ?] ORDER BY id
 *
 * The tenants table is one row per customer: read whole.
 */
export async function findLoadTenants(manager: EntityManager, filter: { groups?: readonly string[]; tenantId?: string } = {}): Promise<LoadTenantRow[]> {
  let where = '';
  let params: unknown[] = [];
  if (filter.tenantId !== undefined) {
    where = 'WHERE id = ?';
    params = [filter.tenantId];
  } else if (filter.groups !== undefined) {
    if (filter.groups.length === 0) return [];
    where = `WHERE engine_group IN (${placeholders(filter.groups.length)})`;
    params = [...filter.groups];
  }
  const { rows } = await execute<Record<string, unknown>>(manager, `SELECT id, engine_group, backlog_alarm_ms, backlog_late_since FROM tenants ${where} ORDER BY id`, params);
  return rows.map((r) => ({
    id: String(r.id),
    engineGroup: String(r.engine_group),
    backlogAlarmMs: numOrNull(r.backlog_alarm_ms),
    backlogLateSince: numOrNull(r.backlog_late_since),
  }));
}
