import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num } from '../engine-queries/sql';

/**
 * A run at an executor (DISPATCHED or ACCEPTED) whose instant is still to come: sent ahead of it
 * (BATON_SEND_AHEAD_MS), it waits at its executor until then, taking a place there but no worker —
 * not its executor's load. Its instant is instant_at when a dispatch back-off or a hand-back moved
 * due_at off it (a run handed back before its instant is sent ahead again, due_at behind it), else
 * due_at. One parameter: now. Read from the rows, not an index alone (no index holds instant_at):
 * within a tenant's DISPATCHED and ACCEPTED range, which the executors' places bound.
 */
export const INSTANT_TO_COME = 'COALESCE(instant_at, due_at) > ?';

/**
 * The runs sent ahead to each of a tenant's executors that wait there for their instant (for the
 * console's Executors page, beside what each executor reported in flight, which counts them):
 *
 *   SELECT executor_id, COUNT(*) FROM runs FORCE INDEX (ix_runs_claim)
 *    WHERE engine_group = ? AND state IN ('DISPATCHED', 'ACCEPTED') AND tenant_id = ? AND COALESCE(instant_at, due_at) > ?
 *    GROUP BY executor_id
 *
 * `engineGroup`: the tenant's (tenants.engine_group), as countTenantRuns reads them.
 */
export async function countSentAheadByExecutor(manager: EntityManager, input: { tenantId: string; engineGroup: string; now: number }): Promise<Map<number, number>> {
  const ix = dialectOf(manager) === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : '';
  const { rows } = await execute<{ executor_id: unknown; n: unknown }>(
    manager,
    `SELECT executor_id, COUNT(*) AS n FROM runs ${ix}
      WHERE engine_group = ? AND state IN ('DISPATCHED', 'ACCEPTED') AND tenant_id = ? AND ${INSTANT_TO_COME} AND executor_id IS NOT NULL
      GROUP BY executor_id`,
    [input.engineGroup, input.tenantId, input.now],
  );
  return new Map(rows.map((r) => [num(r.executor_id), num(r.n)]));
}
