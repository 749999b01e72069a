import type { EntityManager } from 'typeorm';
import type { RunCause } from '@baton/domain';
import { dialectOf, execute, num, numOrNull, placeholders, skipLocked } from './sql';
import type { Dialect } from './sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CLAIM_DUE_RUNS = runWrite('claimDueRuns', ['PENDING', 'RETRY_WAIT'], 'CLAIMED');

/** A run this engine has just claimed (state CLAIMED, claimed_by = it, lease set). */
export interface ClaimedRunRow {
  id: number;
  tenantId: string;
  taskId: number;
  engineGroup: string;
  cause: RunCause;
  attempt: number;
  priority: number;
  /** The run's params snapshot (parsed JSON). */
  params: unknown;
  scheduledAt: number;
  dueAt: number;
  /** Root run of the flow; a root run's own id (null never leaves this function). */
  flowId: number;
  /** Executor of its last dispatch (a taken-over DISPATCHED run is re-sent there). */
  executorId: number | null;
  leaseUntil: number;
  /** A child run's parents' results in its flow (JSON text), or null. */
  parentResults?: string | null;
  /** The params of its flow (JSON text), or null. */
  flowParams?: string | null;
  /** A shard's place, fan-out run and pinned executor (cause SHARD); null for other runs. */
  shard?: ClaimedShard | null;
}

/** Where a claimed shard belongs. */
export interface ClaimedShard {
  /** Its fan-out run. */
  parentRunId: number;
  index: number;
  total: number;
  /** A broadcast shard runs here or nowhere. */
  pinnedExecutorId: number | null;
}

export interface ClaimDueRunsInput {
  groups: readonly string[];
  /** Claim runs due at or before this (now + look-ahead). */
  dueBefore: number;
  limit: number;
  /** This engine's node id (claimed_by). */
  owner: string;
  leaseUntil: number;
  now: number;
}

/** The states a claim takes a run from: new runs, and retries whose backoff is over. */
const CLAIMABLE = ['PENDING', 'RETRY_WAIT'] as const;

/** The claim's SELECT for one (group, state) — exported so the plan test EXPLAINs this very text. */
export function claimDueRunsSql(dialect: Dialect): string {
  return `SELECT id, tenant_id, task_id, engine_group, cause, attempt, priority, params, scheduled_at, due_at, flow_id, executor_id, parent_results, flow_params,
                   parent_run_id, shard_index, shard_total, pinned_executor_id
            FROM runs ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : ''}
           WHERE engine_group = ? AND state = ? AND due_at <= ?
           ORDER BY due_at, priority DESC, id
           LIMIT ?
           ${skipLocked(dialect)}`;
}

/**
 * The claim: due runs of this engine's groups, earliest due first (higher priority first among
 * equal due times), taken over in the same transaction.
 *
 *   -- once per (engine group, claimable state):
 *   SELECT id, … FROM runs FORCE INDEX (ix_runs_claim)
 *    WHERE engine_group = ? AND state = ? AND due_at <= ?
 *    ORDER BY due_at, priority DESC, id
 *    LIMIT ?
 *    FOR UPDATE SKIP LOCKED
 *   -- then, for the best `limit` of what those returned:
 *   UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
 *    WHERE id IN (…) AND state IN ('PENDING', 'RETRY_WAIT')
 *
 * Shape, and why (measured on MariaDB 10.11, 300 000 runs of which 40 000 due, LIMIT 500):
 * - Index ix_runs_claim (engine_group, state, due_at, priority DESC), whose InnoDB entries end
 *   with the primary key (so `, id` breaks ties in index order too): with one group and one
 *   state the SELECT is an in-order range scan (EXPLAIN: range, "Using where", no filesort),
 *   LIMIT stops it after 500 rows, and only those are locked — 1–3 ms. A second engine running
 *   the same SELECT meanwhile gets the next 500 at once (disjoint, no wait).
 * - FORCE INDEX, because the plan is the point: other indexes share the (engine_group, state)
 *   prefix (the watchdog's ix_runs_late, ix_runs_deadline) or lead with state (ix_runs_lease),
 *   and with few rows of a state MariaDB was seen picking ix_runs_lease for the RETRY_WAIT claim
 *   — harmless while there are few, a lock-everything filesort once a retry storm fills it.
 *   (SQLite needs no hint: one engine, no row locks.)
 * - One SELECT per (group, state), not `engine_group IN (…) AND state IN (…)`: several
 *   ranges cannot be read in due_at order, so MySQL filesorts, and a filesort reads and
 *   row-locks every due row before LIMIT — measured: 57–97 ms per claim, all 40 000 due rows
 *   locked, and the second engine got 0 rows. The same happens with the old index
 *   (engine_group, state, due_at) and `ORDER BY due_at, priority DESC`.
 * - The whole claim transaction (SELECT, UPDATE of 500 rows, task read) measured 18–25 ms on
 *   MariaDB and 6–10 ms on SQLite for a batch of 500.
 * - The per-range results are merged in memory (due_at, priority desc, id) and cut to `limit`;
 *   rows read but not kept stay locked only until this transaction commits, milliseconds.
 * - No join to tasks here: FOR UPDATE would lock the task rows too, colliding with the
 *   planner's task claim (and MariaDB has no `FOR UPDATE OF runs`). findClaimedRunTasks reads
 *   them afterwards without locking.
 * - The UPDATE names the rows by primary key and keeps the state guard: on MySQL the rows are
 *   locked, so it always matches; the guard documents the transition (PENDING | RETRY_WAIT →
 *   CLAIMED) and makes a logic error loud (the caller checks the count).
 * - The attempt number is not touched: the retry path stores the next attempt when it moves a
 *   run to RETRY_WAIT (domain retryDecision's nextAttempt).
 * - Run the transaction at READ COMMITTED on MySQL: no gap locks, so a claim never blocks the
 *   planner's inserts of new runs into the ranges it scanned.
 * - SQLite: the same statements without the locking clause; one engine, serialised transactions.
 */
export async function claimDueRuns(manager: EntityManager, input: ClaimDueRunsInput): Promise<ClaimedRunRow[]> {
  if (input.limit <= 0 || input.groups.length === 0) return [];
  const sql = claimDueRunsSql(dialectOf(manager));
  const found: Array<Record<string, unknown>> = [];
  for (const group of input.groups) {
    for (const state of CLAIMABLE) {
      const { rows } = await execute<Record<string, unknown>>(manager, sql, [group, state, input.dueBefore, input.limit]);
      found.push(...rows);
    }
  }
  found.sort((a, b) => num(a.due_at) - num(b.due_at) || num(b.priority) - num(a.priority) || num(a.id) - num(b.id));
  const chosen = found.slice(0, input.limit);
  if (chosen.length === 0) return [];

  const ids = chosen.map((r) => num(r.id));
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(CLAIM_DUE_RUNS)}`,
    [input.owner, input.leaseUntil, input.now, ...ids],
  );
  if (affected !== ids.length) {
    // Cannot happen while the rows are locked (MySQL) or the transaction is exclusive (SQLite).
    throw new Error(`claim: ${ids.length} runs selected but ${affected} moved to CLAIMED; rolling back`);
  }
  return chosen.map((r) => ({
    id: num(r.id),
    tenantId: String(r.tenant_id),
    taskId: num(r.task_id),
    engineGroup: String(r.engine_group),
    cause: r.cause as RunCause,
    attempt: num(r.attempt),
    priority: num(r.priority),
    params: JSON.parse(String(r.params)) as unknown,
    scheduledAt: num(r.scheduled_at),
    dueAt: num(r.due_at),
    flowId: numOrNull(r.flow_id) ?? num(r.id),
    executorId: numOrNull(r.executor_id),
    leaseUntil: input.leaseUntil,
    parentResults: r.parent_results === null || r.parent_results === undefined ? null : String(r.parent_results),
    flowParams: r.flow_params === null || r.flow_params === undefined ? null : String(r.flow_params),
    shard:
      r.cause === 'SHARD'
        ? { parentRunId: num(r.parent_run_id), index: num(r.shard_index), total: num(r.shard_total), pinnedExecutorId: numOrNull(r.pinned_executor_id) }
        : null,
  }));
}
