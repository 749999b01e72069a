import type { EntityManager } from 'typeorm';
import { chunks, dialectOf, execute, num, placeholders } from '../engine-queries/sql';
import type { Dialect } from '../engine-queries/sql';

/** The statement for `count` tenants: exported so the plan test EXPLAINs this very text. */
export function findOldestDueSql(dialect: Dialect, count: number): string {
  const oldest = (state: string) =>
    `(SELECT due_at FROM runs ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : ''}
       WHERE engine_group = t.engine_group AND state = '${state}' AND tenant_id = t.id AND due_at <= ? ORDER BY due_at LIMIT 1)`;
  return `SELECT t.id AS tenant_id, ${oldest('PENDING')} AS pending, ${oldest('RETRY_WAIT')} AS retrying
            FROM tenants t WHERE t.id IN (${placeholders(count)})`;
}

/**
 * The due time of each tenant's oldest due run (PENDING or RETRY_WAIT, due_at ≤ now), of the
 * tenants given (tenants.id; its runs are read in tenants.engine_group, where all its waiting runs
 * are: moveTenantGroup takes them along); a tenant with nothing due is absent. One statement per
 * 500 tenants, one MIN per waiting state:
 *
 *   SELECT t.id AS tenant_id,
 *          (SELECT due_at FROM runs FORCE INDEX (ix_runs_claim)
 *            WHERE engine_group = t.engine_group AND state = 'PENDING' AND tenant_id = t.id AND due_at <= ?
 *            ORDER BY due_at LIMIT 1) AS pending,
 *          (… state = 'RETRY_WAIT' …) AS retrying
 *     FROM tenants t WHERE t.id IN (…)
 *
 * Each is one index dive into ix_runs_claim (engine_group, state, tenant_id, due_at, …): the
 * first entry of the tenant's range, in index order, however many runs wait (the plan test
 * counts the handler reads for a tenant with 10,000 due runs: its primary key and two dives).
 * ORDER BY … LIMIT 1 rather than MIN, which MariaDB 10.11 answers the same way here, because
 * the text then says the plan it relies on. There is no index of (state, tenant_id, due_at) for a loose index scan
 * over every tenant any more: it cost each run four index rewrites
 * (migrations/1797100000000-run-hot-path-indexes.ts), and ix_runs_claim, with its DESC key part,
 * does not take a loose scan. Correlated subqueries of one short text, not a UNION ALL of a
 * SELECT per (tenant, state): with 1,000 tenants the UNIONs (200 branches, ~46 KB a statement)
 * cost each engine's load sample ~44 ms of MariaDB, 29 ms a second of an idle cluster's
 * (performance_schema, 2026-12-06).
 */
export async function findOldestDue(manager: EntityManager, input: { now: number; tenants: ReadonlyArray<{ id: string }> }): Promise<Map<string, number>> {
  const dialect = dialectOf(manager);
  const oldest = new Map<string, number>();
  for (const part of chunks(input.tenants)) {
    const { rows } = await execute<{ tenant_id: string; pending: unknown; retrying: unknown }>(manager, findOldestDueSql(dialect, part.length), [input.now, input.now, ...part.map((t) => t.id)]);
    for (const r of rows) {
      const due = [r.pending, r.retrying].filter((v) => v !== null && v !== undefined).map(num);
      if (due.length > 0) oldest.set(String(r.tenant_id), Math.min(...due));
    }
  }
  return oldest;
}
