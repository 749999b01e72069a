import type { EntityManager } from 'typeorm';
import type { RunCause } from '@baton/domain';
import { chunks, dialectOf, execute, num, numOrNull, placeholders, skipLocked } from '../sql';
import type { Dialect } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CLAIM_DUE_RUNS = runWrite('claimDueRuns', ['PENDING', 'RETRY_WAIT', 'COALESCING'], 'CLAIMED');

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
  /** When it could be claimed (its instant, or the end of a dispatch back-off). */
  dueAt: number;
  /** The instant its attempt is to start at: instant_at, or due_at when no back-off moved it. */
  instantAt: number;
  /** The instant its lateness counts from: late_from_at (when its keys admitted it after holding it back, a retry's instant), else instantAt (find-late-runs.ts). */
  lateFrom: number;
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
  /** W3C traceparent of the span that made the run; null when it was made untraced. */
  traceParent?: string | null;
  /** Its concurrency key, once a claim admitted it (it holds a place of its key); null: not admitted, or no key. */
  runKey?: string | null;
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

/** How many due runs to claim of one tenant, and in which engine group its runs are. */
export interface TenantTake {
  tenantId: string;
  engineGroup: string;
  /** At most this many (its allotment of the turn). */
  limit: number;
  /**
   * Leave its runs a console made with a wake-up naming them (PENDING, cause in WOKEN_CAUSES,
   * created_at within [from, to]) to that wake-up; absent: take them too. ClaimerService sets it
   * for a tenant whose wake-ups this node takes (WOKEN_RUNS_GRACE_MS).
   */
  leaveWoken?: { from: number; to: number };
}

/**
 * Causes of the runs a console writes and then names in a wake-up (a trigger, a submission, an
 * event, a re-run): the engine woken claims them by id, in one statement for the wake-up's runs.
 */
export const WOKEN_CAUSES = ['MANUAL', 'EVENT'] as const satisfies readonly RunCause[];

export interface ClaimDueRunsInput {
  /** The tenants of this turn, each with its allotment (ClaimerService, fair shares). */
  takes: readonly TenantTake[];
  /** Claim runs due at or before this (now + look-ahead). */
  dueBefore: number;
  /** This engine's node id (claimed_by). */
  owner: string;
  leaseUntil: number;
  now: number;
}

/**
 * The states a claim takes a run from: new runs, retries whose backoff is over, and debounced or
 * throttled keys' windows (COALESCING) — those only once due, never ahead within the look-ahead:
 * until its due time a window stays open to the key's next submission, which a run held in an
 * engine's memory could not take.
 */
const CLAIMABLE = ['PENDING', 'RETRY_WAIT', 'COALESCING'] as const;

/** The run columns a claim reads (claimedRunColumns), one name each. */
export type ClaimedRunColumn = (typeof RUN_COLUMNS)[number];

const RUN_COLUMNS = [
  'id', 'tenant_id', 'task_id', 'engine_group', 'cause', 'attempt', 'priority', 'params', 'scheduled_at', 'due_at', 'instant_at', 'late_from_at', 'flow_id', 'executor_id',
  'parent_results', 'flow_params', 'parent_run_id', 'shard_index', 'shard_total', 'pinned_executor_id', 'trace_parent', 'run_key',
] as const;

/** What a claim reads of each run it takes (claimedRunRow maps it), of `table` when a join needs it named. */
export function claimedRunColumns(table = ''): string {
  return RUN_COLUMNS.map((c) => (table ? `${table}.${c}` : c)).join(', ');
}

/** One tenant's range of one state: exported so the plan test EXPLAINs this very text. */
export function claimDueRunsSql(dialect: Dialect): string {
  return `SELECT ${claimedRunColumns()}
            FROM runs ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : ''}
           WHERE engine_group = ? AND state = ? AND tenant_id = ? AND due_at <= ?
             AND NOT (cause IN (${WOKEN_CAUSES.map((c) => `'${c}'`).join(', ')}) AND created_at BETWEEN ? AND ?)
           ORDER BY due_at, priority DESC, id
           LIMIT ?
           ${skipLocked(dialect)}`;
}

/** One range's parameters, in claimDueRunsSql's order. */
export function claimRangeParams(take: TenantTake, state: (typeof CLAIMABLE)[number], at: { dueBefore: number; now: number }): unknown[] {
  // [1, 0]: an empty window, so the range leaves nothing to a wake-up.
  const woken = state === 'PENDING' && take.leaveWoken ? [take.leaveWoken.from, take.leaveWoken.to] : [1, 0];
  return [take.engineGroup, state, take.tenantId, state === 'COALESCING' ? at.now : at.dueBefore, ...woken, take.limit];
}

/** Ranges per statement: 100 tenants × 2 states (66 × 3 now), one round trip (measured: see below). */
const RANGES_PER_STATEMENT = 200;

/**
 * The claim: for each tenant of the turn, its due runs, earliest due first (higher priority first
 * among equal due times), at most its allotment, taken over in the same transaction.
 *
 *   -- one statement, one range per (tenant, claimable state):
 *   (SELECT id, … FROM runs FORCE INDEX (ix_runs_claim)
 *     WHERE engine_group = ? AND state = ? AND tenant_id = ? AND due_at <= ?
 *       AND NOT (cause IN ('MANUAL', 'EVENT') AND created_at BETWEEN ? AND ?)
 *     ORDER BY due_at, priority DESC, id LIMIT ? FOR UPDATE SKIP LOCKED)
 *   UNION ALL (…next range…)
 *   -- then, for the best `limit` of each tenant's rows:
 *   UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
 *    WHERE id IN (…) AND state IN ('PENDING', 'RETRY_WAIT', 'COALESCING')
 *
 * Shape, and why (MariaDB 10.11):
 * - Index ix_runs_claim (engine_group, state, tenant_id, due_at, priority DESC), whose InnoDB
 *   entries end with the primary key (so `, id` breaks ties in index order too): each range is
 *   one tenant's, read in order, stopped by LIMIT, and only those rows are locked. A tenant's
 *   backlog is never walked to reach another's: a 100,000-run backfill costs the other tenants'
 *   ranges nothing (before, with (engine_group, state, due_at, …), the claim read in due order
 *   across tenants and a backlog of old due runs stood in front of everybody's new ones).
 *   A second engine running the same statement meanwhile skips the locked rows and gets the next.
 * - Per tenant, not `tenant_id IN (…)`: several ranges cannot be read in due_at order, so MySQL
 *   filesorts, and a filesort reads and row-locks every due row before LIMIT (measured on the
 *   previous index: 57–97 ms per claim, 40,000 due rows locked, the second engine got none).
 * - The ranges go in one UNION ALL statement: one round trip for a turn of 100 tenants.
 * - FORCE INDEX, because the plan is the point: other indexes share the (engine_group, state)
 *   prefix (ix_runs_late, ix_runs_deadline) or lead with state (ix_runs_lease).
 * - The per-range results are merged per tenant in memory (due_at, priority desc, id) and cut to
 *   its allotment; rows read but not kept stay locked only until this transaction commits.
 * - No join to tasks here: FOR UPDATE would lock the task rows too, colliding with the
 *   planner's task claim (and MariaDB has no `FOR UPDATE OF runs`). findClaimedRunTasks reads
 *   them afterwards without locking.
 * - A run a console has just written and named in a wake-up (`leaveWoken`) is that wake-up's:
 *   the engine woken reads it by id and its DISPATCHED mark claims it (readNamedRuns). A turn
 *   that took it first (its poll fell between the console's commit and the wake-up) cost it an
 *   extra CLAIMED write and the turn its statements, and left the woken engine a read that found
 *   nothing: at 500 submissions a second 13–15 % of the runs went that way (2026-12-05). The
 *   condition is on the rows the range reads anyway (cause and created_at are not in the index);
 *   an empty window ([1, 0]) for the other ranges keeps one statement text.
 * - COALESCING ranges (a debounced or throttled key's window) read `due_at <= now`, not the
 *   look-ahead: an empty range of the index for a tenant without windows, one index dive.
 * - The UPDATE names the rows by primary key and keeps the state guard: on MySQL the rows are
 *   locked, so it always matches; the guard documents the transition (PENDING | RETRY_WAIT |
 *   COALESCING → CLAIMED) and makes a logic error loud (the caller checks the count).
 * - The attempt number is not touched: the retry path stores the next attempt when it moves a
 *   run to RETRY_WAIT (domain retryDecision's nextAttempt).
 * - Run the transaction at READ COMMITTED on MySQL: no gap locks, so a claim never blocks the
 *   planner's inserts of new runs into the ranges it scanned.
 * - SQLite: the same ranges without the locking clause, each wrapped as a subquery (a compound
 *   SELECT takes ORDER BY/LIMIT only there); one engine, serialised transactions.
 */
export async function claimDueRuns(manager: EntityManager, input: ClaimDueRunsInput): Promise<ClaimedRunRow[]> {
  const takes = input.takes.filter((t) => t.limit > 0);
  if (takes.length === 0) return [];
  const dialect = dialectOf(manager);
  const range = claimDueRunsSql(dialect);
  const ranges = takes.flatMap((t) => CLAIMABLE.map((state) => ({ take: t, state })));
  const found: Array<Record<string, unknown>> = [];
  for (const part of chunks(ranges, RANGES_PER_STATEMENT)) {
    const sql = part.map(() => (dialect === 'mysql' ? `(${range})` : `SELECT * FROM (${range})`)).join('\n UNION ALL ');
    const params = part.flatMap(({ take, state }) => claimRangeParams(take, state, input));
    found.push(...(await execute<Record<string, unknown>>(manager, sql, params)).rows);
  }
  const limitOf = new Map(takes.map((t) => [t.tenantId, t.limit]));
  found.sort((a, b) => num(a.due_at) - num(b.due_at) || num(b.priority) - num(a.priority) || num(a.id) - num(b.id));
  const kept = new Map<string, number>();
  const chosen = found.filter((r) => {
    const tenant = String(r.tenant_id);
    const n = kept.get(tenant) ?? 0;
    if (n >= (limitOf.get(tenant) ?? 0)) return false;
    kept.set(tenant, n + 1);
    return true;
  });
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
  return chosen.map((r) => claimedRunRow(r, input.leaseUntil));
}

/** A claimed row of CLAIMED_RUN_COLUMNS, as the engine holds it. */
export function claimedRunRow(r: Record<string, unknown>, leaseUntil: number): ClaimedRunRow {
  return {
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
    instantAt: numOrNull(r.instant_at) ?? num(r.due_at),
    lateFrom: numOrNull(r.late_from_at) ?? numOrNull(r.instant_at) ?? num(r.due_at),
    flowId: numOrNull(r.flow_id) ?? num(r.id),
    executorId: numOrNull(r.executor_id),
    leaseUntil,
    parentResults: r.parent_results === null || r.parent_results === undefined ? null : String(r.parent_results),
    flowParams: r.flow_params === null || r.flow_params === undefined ? null : String(r.flow_params),
    shard:
      r.cause === 'SHARD'
        ? { parentRunId: num(r.parent_run_id), index: num(r.shard_index), total: num(r.shard_total), pinnedExecutorId: numOrNull(r.pinned_executor_id) }
        : null,
    traceParent: r.trace_parent === null || r.trace_parent === undefined ? null : String(r.trace_parent),
    runKey: r.run_key === null || r.run_key === undefined ? null : String(r.run_key),
  };
}
