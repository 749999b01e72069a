import type { EntityManager } from 'typeorm';
import { execute, num } from '../engine-queries/sql';

/**
 * The due time of each tenant's oldest due run (PENDING or RETRY_WAIT, due_at ≤ now), by tenant;
 * a tenant with nothing due is absent. Every tenant, or one:
 *
 *   SELECT tenant_id, MIN(due_at) FROM runs
 *    WHERE state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? [AND tenant_id = ?]
 *    GROUP BY state, tenant_id
 *
 * On ix_runs_load (state, tenant_id, due_at) this is a loose index scan (EXPLAIN on MariaDB:
 * "Using index for group-by"): one index dive per (state, tenant), however many runs wait — the
 * shape of find-lease-holders.ts. Grouping by state too is what makes it one: MIN over both states
 * at once would need the two ranges merged. The two states' minimums are folded here.
 */
export function findOldestDueSql(oneTenant: boolean): string {
  return `SELECT tenant_id, MIN(due_at) AS oldest FROM runs
           WHERE state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ?${oneTenant ? ' AND tenant_id = ?' : ''}
           GROUP BY state, tenant_id`;
}

export async function findOldestDue(manager: EntityManager, input: { now: number; tenantId?: string }): Promise<Map<string, number>> {
  const one = input.tenantId !== undefined;
  const { rows } = await execute<{ tenant_id: string; oldest: unknown }>(manager, findOldestDueSql(one), one ? [input.now, input.tenantId] : [input.now]);
  const oldest = new Map<string, number>();
  for (const r of rows) {
    if (r.oldest === null) continue;
    const at = num(r.oldest);
    const tenantId = String(r.tenant_id);
    const seen = oldest.get(tenantId);
    if (seen === undefined || at < seen) oldest.set(tenantId, at);
  }
  return oldest;
}
