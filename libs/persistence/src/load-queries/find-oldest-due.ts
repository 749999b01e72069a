import type { EntityManager } from 'typeorm';
import { chunks, dialectOf, execute, num } from '../engine-queries/sql';
import type { Dialect } from '../engine-queries/sql';

/** The states a due run waits in. */
const WAITING = ['PENDING', 'RETRY_WAIT'] as const;

/** (tenant, state) pairs per statement: 100 tenants. */
const PAIRS_PER_STATEMENT = 200;

/** One (tenant, state)'s oldest due run: exported so the plan test EXPLAINs this very text. */
export function findOldestDueSql(dialect: Dialect): string {
  return `SELECT ? AS tenant_id, (SELECT MIN(due_at) FROM runs ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : ''}
                                   WHERE engine_group = ? AND state = ? AND tenant_id = ? AND due_at <= ?) AS oldest`;
}

/**
 * The due time of each tenant's oldest due run (PENDING or RETRY_WAIT, due_at ≤ now), of the
 * tenants given (with their engine group, tenants.engine_group); a tenant with nothing due is
 * absent. One statement per 100 tenants, one MIN per (tenant, waiting state):
 *
 *   SELECT ? AS tenant_id, (SELECT MIN(due_at) FROM runs FORCE INDEX (ix_runs_claim)
 *                            WHERE engine_group = ? AND state = ? AND tenant_id = ? AND due_at <= ?) AS oldest
 *   UNION ALL …
 *
 * Each MIN is one index dive into ix_runs_claim (engine_group, state, tenant_id, due_at, …)
 * (EXPLAIN on MariaDB: "Select tables optimized away"), however many runs wait. A tenant's
 * waiting runs are all in its group (moveTenantGroup takes them along). There is no index of
 * (state, tenant_id, due_at) for a loose index scan over every tenant any more: it cost each run
 * four index rewrites (migrations/1797100000000-run-hot-path-indexes.ts), and ix_runs_claim, with
 * its DESC key part, does not take a loose scan. The two states' minimums are folded here.
 */
export async function findOldestDue(manager: EntityManager, input: { now: number; tenants: ReadonlyArray<{ id: string; engineGroup: string }> }): Promise<Map<string, number>> {
  const dialect = dialectOf(manager);
  const one = findOldestDueSql(dialect);
  const pairs = input.tenants.flatMap((t) => WAITING.map((state) => ({ t, state })));
  const oldest = new Map<string, number>();
  for (const part of chunks(pairs, PAIRS_PER_STATEMENT)) {
    const sql = part.map(() => (dialect === 'mysql' ? `(${one})` : one)).join('\n UNION ALL ');
    const params = part.flatMap(({ t, state }) => [t.id, t.engineGroup, state, t.id, input.now]);
    const { rows } = await execute<{ tenant_id: string; oldest: unknown }>(manager, sql, params);
    for (const r of rows) {
      if (r.oldest === null || r.oldest === undefined) continue;
      const at = num(r.oldest);
      const tenantId = String(r.tenant_id);
      const seen = oldest.get(tenantId);
      if (seen === undefined || at < seen) oldest.set(tenantId, at);
    }
  }
  return oldest;
}
