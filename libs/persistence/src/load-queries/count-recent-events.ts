import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num } from '../engine-queries/sql';

/**
 * Events received since `since`, per tenant (the baton_engine_tenant_events_per_second gauge),
 * among the newest `cap` events of all tenants:
 *
 *   SELECT tenant_id, COUNT(*) AS n FROM events FORCE INDEX (PRIMARY)
 *   WHERE id > (SELECT COALESCE(MAX(id), 0) FROM events) - ? AND received_at >= ? GROUP BY tenant_id
 *
 * A range of the primary key from its end (ids grow with receipt): one dive for MAX(id), then at
 * most `cap` rows however many events are kept (forced: for the GROUP BY, MariaDB would rather
 * walk all of ix_events_tenant_time, every event kept) — a tenant's counts are exact while all tenants
 * together sent fewer than `cap` since `since`, a floor beyond. One statement for every tenant,
 * instead of a dive per tenant into ix_events_tenant_time.
 */
export async function countRecentEvents(manager: EntityManager, input: { since: number; cap: number }): Promise<Map<string, number>> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    countRecentEventsSql(dialectOf(manager)),
    [input.cap, input.since],
  );
  return new Map(rows.map((r) => [String(r.tenant_id), num(r.n)]));
}

export function countRecentEventsSql(dialect: 'mysql' | 'sqlite'): string {
  const ix = dialect === 'mysql' ? ' FORCE INDEX (PRIMARY)' : '';
  return `SELECT tenant_id, COUNT(*) AS n FROM events${ix} WHERE id > (SELECT COALESCE(MAX(id), 0) FROM events) - ? AND received_at >= ? GROUP BY tenant_id`;
}
