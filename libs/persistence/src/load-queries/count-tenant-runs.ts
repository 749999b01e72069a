import type { EntityManager } from 'typeorm';
import { loadCount, type LoadCount } from '@baton/domain';
import { dialectOf, execute, num } from '../engine-queries/sql';

export interface TenantRunCounts {
  due: LoadCount;
  held: LoadCount;
  inFlight: LoadCount;
}

/**
 * One tenant's runs due, held and in flight, each counted up to `cap` (a LoadCount):
 *
 *   SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *            WHERE engine_group = ? AND state IN ('PENDING', 'RETRY_WAIT') AND tenant_id = ? AND due_at <= ? LIMIT cap + 1) d) AS due,
 *          (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_tenant_filter)
 *            WHERE tenant_id = ? AND state = 'CLAIMED' LIMIT cap + 1) h) AS held,
 *          (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_tenant_filter)
 *            WHERE tenant_id = ? AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT cap + 1) f) AS in_flight
 *
 * Each is a range read from the index alone, and the LIMIT stops it: the cost of a call is at
 * most 3 × (cap + 1) index entries, however large the backlog (a 100,000-run backfill reads as
 * "10,000+"). Due runs: ix_runs_claim (engine_group, state, tenant_id, due_at, …) in the tenant's
 * group — its waiting runs are all there (moveTenantGroup takes them along). Held and in flight:
 * ix_runs_tenant_filter (tenant_id, state, …), whatever group they were claimed in. No index of
 * their own (ix_runs_load went: each index holding `state` is rewritten by each of a run's state
 * changes, migrations/1797100000000-run-hot-path-indexes.ts). One statement, so the three counts
 * are of one instant on MariaDB (one read view) as on SQLite. MariaDB is told the indexes: left
 * alone, it read the due range of a tenant with a 10,000-run backlog through ix_runs_tenant_filter,
 * which has no due_at — a row read per run to test it (EXPLAIN on MariaDB 10.11: "Using index
 * condition; Using where", ~20,000 rows).
 */
export function countTenantRunsSql(dialect: 'mysql' | 'sqlite'): string {
  const [claim, byTenant] = dialect === 'mysql' ? ['FORCE INDEX (ix_runs_claim)', 'FORCE INDEX (ix_runs_tenant_filter)'] : ['', ''];
  return `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${claim} WHERE engine_group = ? AND state IN ('PENDING', 'RETRY_WAIT') AND tenant_id = ? AND due_at <= ? LIMIT ?) d) AS due,
                 (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${byTenant} WHERE tenant_id = ? AND state = 'CLAIMED' LIMIT ?) h) AS held,
                 (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${byTenant} WHERE tenant_id = ? AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT ?) f) AS in_flight`;
}

/** `engineGroup`: the tenant's (tenants.engine_group). */
export async function countTenantRuns(manager: EntityManager, input: { tenantId: string; engineGroup: string; now: number; cap: number }): Promise<TenantRunCounts> {
  const { tenantId, engineGroup, now, cap } = input;
  const { rows } = await execute<{ due: unknown; held: unknown; in_flight: unknown }>(manager, countTenantRunsSql(dialectOf(manager)), [
    engineGroup,
    tenantId,
    now,
    cap + 1,
    tenantId,
    cap + 1,
    tenantId,
    cap + 1,
  ]);
  return { due: loadCount(num(rows[0].due), cap), held: loadCount(num(rows[0].held), cap), inFlight: loadCount(num(rows[0].in_flight), cap) };
}
