import type { EntityManager } from 'typeorm';
import { chunks, dialectOf, execute, placeholders, type Dialect } from '../sql';

/**
 * Which of these tenants have a run a claim would take (PENDING or RETRY_WAIT due by
 * `dueBefore`, COALESCING due by `now`: claimDueRuns' ranges), in their own engine group:
 *
 *   SELECT t.id FROM tenants t
 *    WHERE t.id IN (…)
 *      AND (EXISTS (SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *                    WHERE engine_group = t.engine_group AND state IN ('PENDING', 'RETRY_WAIT') AND tenant_id = t.id AND due_at <= ?)
 *        OR EXISTS (SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *                    WHERE engine_group = t.engine_group AND state = 'COALESCING' AND tenant_id = t.id AND due_at <= ?))
 *
 * The claim turn's look at its idle tenants (ClaimerService): it claims only from those found
 * here. Why: a turn read its idle tenants' ranges directly, 100 a poll, in its claim transaction —
 * a UNION ALL of 300 ranges each naming the 22 columns a claim reads, ~126 KB of SQL — and with
 * 1,000 idle tenants in the group that kept an idle cluster's MariaDB at ~0.2 of a core (its
 * general log, 2026-12-06). Here each tenant is three index dives into ix_runs_claim (engine_group,
 * state, tenant_id, due_at) behind a short statement text, outside any transaction. A run
 * a console named in a wake-up counts too (the claim leaves it to the wake-up): the answer is a
 * superset, which only costs the claim a range read of such a tenant.
 */
export async function findTenantsWithDue(manager: EntityManager, input: { tenantIds: readonly string[]; dueBefore: number; now: number }): Promise<Set<string>> {
  const due = new Set<string>();
  for (const part of chunks(input.tenantIds)) {
    const { rows } = await execute<{ id: unknown }>(manager, findTenantsWithDueSql(dialectOf(manager), part.length), [...part, input.dueBefore, input.now]);
    for (const r of rows) due.add(String(r.id));
  }
  return due;
}

/** The statement for `count` tenants: exported so the plan test EXPLAINs this very text. */
export function findTenantsWithDueSql(dialect: Dialect, count: number): string {
  const force = dialect === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : '';
  return `SELECT t.id FROM tenants t
           WHERE t.id IN (${placeholders(count)})
             AND (EXISTS (SELECT 1 FROM runs ${force} WHERE engine_group = t.engine_group AND state IN ('PENDING', 'RETRY_WAIT') AND tenant_id = t.id AND due_at <= ?)
               OR EXISTS (SELECT 1 FROM runs ${force} WHERE engine_group = t.engine_group AND state = 'COALESCING' AND tenant_id = t.id AND due_at <= ?))`;
}
