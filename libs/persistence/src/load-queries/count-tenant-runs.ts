import type { EntityManager } from 'typeorm';
import { loadCount, subtractCount, type LoadCount } from '@baton/domain';
import { dialectOf, execute, num } from '../engine-queries/sql';
import { INSTANT_TO_COME } from './sent-ahead';

export interface TenantRunCounts {
  due: LoadCount;
  held: LoadCount;
  /** DISPATCHED and ACCEPTED whose instant has come: running at their executor, or waiting there for a worker. */
  inFlight: LoadCount;
  /** DISPATCHED and ACCEPTED sent ahead of their instant, waiting for it at their executor (INSTANT_TO_COME). */
  sentAhead: LoadCount;
}

/**
 * One tenant's runs due, held, in flight and sent ahead, each counted up to `cap` (a LoadCount):
 *
 *   SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *            WHERE engine_group = ? AND state IN ('PENDING', 'RETRY_WAIT') AND tenant_id = ? AND due_at <= ? LIMIT cap + 1) d) AS due,
 *          (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_tenant_filter)
 *            WHERE tenant_id = ? AND state = 'CLAIMED' LIMIT cap + 1) h) AS held,
 *          (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_tenant_filter)
 *            WHERE tenant_id = ? AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT cap + 1) f) AS at_executors,
 *          (SELECT COUNT(*) FROM (SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *            WHERE engine_group = ? AND state IN ('DISPATCHED', 'ACCEPTED') AND tenant_id = ? AND COALESCE(instant_at, due_at) > ? LIMIT cap + 1) a) AS sent_ahead
 *
 * In flight is what is at executors less what was sent ahead: a run sent ahead of its instant
 * waits there for it, no worker's load (a flood of frequent tasks read 62 runs in flight for
 * executors with nothing to do, and BatonExecutorsSaturated told the operator to add executors).
 * The first three are ranges read from the index alone, and the LIMIT stops them: at most
 * 3 × (cap + 1) index entries, however large the backlog (a 100,000-run backfill reads as
 * "10,000+"); the runs sent ahead are read from the rows of the tenant's DISPATCHED and ACCEPTED
 * range of its group (their instant_at), which its executors' places bound. Due runs: ix_runs_claim (engine_group, state, tenant_id, due_at, …) in the tenant's
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
                 (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${byTenant} WHERE tenant_id = ? AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT ?) f) AS at_executors,
                 (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${claim} WHERE engine_group = ? AND state IN ('DISPATCHED', 'ACCEPTED') AND tenant_id = ? AND ${INSTANT_TO_COME} LIMIT ?) a) AS sent_ahead`;
}

/** `engineGroup`: the tenant's (tenants.engine_group). */
export async function countTenantRuns(manager: EntityManager, input: { tenantId: string; engineGroup: string; now: number; cap: number }): Promise<TenantRunCounts> {
  const { tenantId, engineGroup, now, cap } = input;
  const { rows } = await execute<{ due: unknown; held: unknown; at_executors: unknown; sent_ahead: unknown }>(manager, countTenantRunsSql(dialectOf(manager)), [
    engineGroup,
    tenantId,
    now,
    cap + 1,
    tenantId,
    cap + 1,
    tenantId,
    cap + 1,
    engineGroup,
    tenantId,
    now,
    cap + 1,
  ]);
  return atExecutors({ due: loadCount(num(rows[0].due), cap), held: loadCount(num(rows[0].held), cap) }, loadCount(num(rows[0].at_executors), cap), loadCount(num(rows[0].sent_ahead), cap));
}

/** The counts with what is at executors split: in flight (its instant has come) and sent ahead. */
export function atExecutors(waiting: Pick<TenantRunCounts, 'due' | 'held'>, all: LoadCount, sentAhead: LoadCount): TenantRunCounts {
  return { ...waiting, inFlight: subtractCount(all, sentAhead.count), sentAhead };
}
