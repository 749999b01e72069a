import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { RunCause, RunState, TimelineClock, WithdrawalState } from '@baton/domain';
import { StoredJson, bigintId, json, millis } from './columns';

/**
 * One fire of a task, written before anything is sent and moved through the run state
 * machine only by conditional updates that name the expected old state.
 */
@Entity({ name: 'runs' })
// Index upkeep is most of what a run costs MariaDB: each of its 4 state changes (CLAIMED,
// DISPATCHED, ACCEPTED, its end) rewrites an entry in every index whose key holds a column the
// change writes — `state` above all. So an index is here only for a query no other one serves
// (migrations/1797100000000-run-hot-path-indexes.ts: ix_runs_load and ix_runs_executor went).
//
// What makes a duplicate fire impossible whatever the engines do: for a scheduled fire
// the fire key is its scheduled time, so this is the (task, scheduled time) key.
// Also count-existing-fires (task_id, fire_key IN …). Stable columns: no upkeep after the insert.
@Index('uq_runs_task_fire_key', ['taskId', 'fireKey'], { unique: true })
// The claim: "due runs of tenant T in engine group G and state S, oldest due first, higher
// priority first among equal due times" — one range per tenant, so no tenant's backlog stands in
// front of another's. The migration makes `priority` a DESCENDING key part (the Table API cannot
// say so) so `ORDER BY due_at, priority DESC LIMIT n` reads the index in order and stops early;
// see libs/persistence/src/engine-queries/runs/claim-due-runs.ts for why that matters.
// Also: count-tenant-backlog, count-group-runs, a tenant's due runs and oldest due run
// (load-queries/count-tenant-runs.ts, find-oldest-due.ts), the live runs of a tenant
// (count-live-runs, find-changed-runs). Rewritten by every state change (state).
@Index('ix_runs_claim', ['engineGroup', 'state', 'tenantId', 'dueAt', 'priority'])
// Leases: "runs engine E holds" (renew-leases, find-held-runs) and "expired leases of E"
// (find-lease-holders' loose index scan). Rewritten by every state change and lease renewal.
@Index('ix_runs_lease', ['state', 'claimedBy', 'leaseUntil'])
// The console: "runs of tenant T by time", newest first, cursor-paginated on (scheduled_at, id)
// (list-runs without a state filter, search-runs). Stable columns.
@Index('ix_runs_tenant_time', ['tenantId', 'scheduledAt', 'id'])
// The same for one task (list-runs, search-runs, find-last-runs, purge by count). Stable columns.
@Index('ix_runs_task_time', ['taskId', 'scheduledAt'])
// A fan-out run's shards (by state: are any still going? stand-of-fan-out, cancel-shards, the
// settler's sweep); a run's children in the console. `state` is needed: without it each shard's
// end would read all the ended shards of its fan-out. Rewritten by every state change.
@Index('ix_runs_parent', ['parentRunId', 'state'])
// Fan-in joins parents within a flow (find-flow-outcomes, find-parent-results, purge). Stable.
@Index('ix_runs_flow', ['flowId'])
// Watchdog START_LATE (find-late-runs): not-yet-dispatched runs of my groups, not alarmed yet,
// whose lateness counts from the past (late_from_at, else scheduled_at) — alarmed runs, a backlog
// planned ahead, retries in their backoff and runs waiting for their rate key's token are not
// read. Rewritten by every state change.
@Index('ix_runs_late', ['engineGroup', 'state', 'lateAlarmedAt', 'lateFromAt', 'scheduledAt'])
// Watchdog TIMEOUT (find-overdue-runs): executing runs of my groups past their deadline; the
// fan-out settler's sweep (ACCEPTED, no deadline); EXECUTOR_DOWN reconciliation
// (find-orphaned-runs: the executing runs of my groups whose executor is DOWN, the executor
// read from the index). executor_id and deadline_at change only with `state`, so this costs
// what (engine_group, state) alone would.
@Index('ix_runs_deadline', ['engineGroup', 'state', 'deadlineAt', 'executorId'])
// Concurrency FORBID/REPLACE: "is another run of this task executing?" (its (task_id, state)
// prefix, find-executing-runs-of-task); the console's run list of a task filtered by state and/or
// cause, newest first; a task's last results (pause-failing-task); cancel-task-runs,
// cancel-backfill-runs. Rewritten by every state change.
@Index('ix_runs_task_filter', ['taskId', 'state', 'cause', 'scheduledAt'])
// The console's run list of a tenant filtered by state and/or cause: one ordered range per pair;
// a tenant's held and in-flight counts (load-queries/count-tenant-runs.ts, index only).
// Rewritten by every state change.
@Index('ix_runs_tenant_filter', ['tenantId', 'state', 'cause', 'scheduledAt'])
// History: "runs of tenant T that ended between A and B" (rollups, purge), and with
// finished_at IS NULL the tenant's runs not ended yet (the live counts of the statistics; the
// runs moveTenantGroup takes along). Rewritten once per run (its end) — and by a retry.
@Index('ix_runs_tenant_finished', ['tenantId', 'finishedAt'])
// Concurrency keys: "going runs of key K of scope S" (a task's or a key group's; counted at every
// admission, bounded by the key's limit), "oldest held runs of K" (released when one ends) and
// "keys with held runs" (the sweep's loose scan: one step per key, not per held run). State first
// for that last one. Only keyed runs have a scope; the others' entries sit under NULL and are
// never read through it.
@Index('ix_runs_key', ['state', 'tenantId', 'keyScope', 'runKey'])
// The engines' sweep of withdrawn fires whose executor has not said whether it started them
// (find-unsettled-withdrawals): a few rows under 'UNSETTLED'; every other run sits under NULL.
@Index('ix_runs_withdrawal', ['withdrawal', 'engineGroup'])
export class RunEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'task_id', type: 'int' })
  taskId!: number;

  @Column({ name: 'engine_group', type: 'varchar', length: 64 })
  engineGroup!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: RunState;

  @Column({ type: 'varchar', length: 16 })
  cause!: RunCause;

  /** `s:<scheduled ms>` for scheduled fires, `m:<uuid>` for manual, `f:<flow id>` for dependency runs. */
  @Column({ name: 'fire_key', type: 'varchar', length: 64 })
  fireKey!: string;

  /**
   * Root run of the flow this run belongs to; null for a root run, whose flow is its own id (roots
   * written by older versions hold their id here). Queries by flow ask `flow_id = ? OR id = ?`.
   */
  @Column({ name: 'flow_id', type: 'bigint', nullable: true, transformer: bigintId })
  flowId!: number | null;

  /** The parent run whose end fired this one (DEPENDENCY runs), or the fan-out run a shard belongs to (SHARD runs). */
  @Column({ name: 'parent_run_id', type: 'bigint', nullable: true, transformer: bigintId })
  parentRunId!: number | null;

  @Column({ type: 'int', default: 1 })
  attempt!: number;

  @Column({ type: 'int', default: 0 })
  priority!: number;

  /** Params as they were when the run was made; later task edits do not change a run. */
  @Column({ type: 'text', transformer: json })
  params!: StoredJson;

  /** The nominal fire time; lateness is measured from here. */
  @Column({ name: 'scheduled_at', type: 'bigint', transformer: millis })
  scheduledAt!: number;

  /** When the run may next be claimed and sent: its instant, or later after a dispatch back-off (then instant_at keeps the instant). */
  @Column({ name: 'due_at', type: 'bigint', transformer: millis })
  dueAt!: number;

  /** The instant the current attempt is to start at (fire time, or a retry's backoff end), once a dispatch back-off moved due_at; null while due_at is it. */
  @Column({ name: 'instant_at', type: 'bigint', nullable: true, transformer: millis })
  instantAt!: number | null;

  /**
   * The instant the current attempt's lateness counts from when it is not the fire time: a retry's
   * instant (retryRunAttempt), or when the run's keys admitted it after holding it back — its rate
   * key's token time (deferRateKeyRuns), the time its concurrency key gave it a place
   * (releaseHeldKeyRuns). START_LATE, the engine's lateness histogram and the task statistics
   * measure from it. Null: a first attempt its keys never held back (lateness counts from scheduled_at).
   */
  @Column({ name: 'late_from_at', type: 'bigint', nullable: true, transformer: millis })
  lateFromAt!: number | null;

  /** Engine node that holds the lease. */
  @Column({ name: 'claimed_by', type: 'varchar', length: 64, nullable: true })
  claimedBy!: string | null;

  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: millis })
  leaseUntil!: number | null;

  @Column({ name: 'executor_id', type: 'int', nullable: true })
  executorId!: number | null;

  @Column({ name: 'dispatched_at', type: 'bigint', nullable: true, transformer: millis })
  dispatchedAt!: number | null;

  /**
   * When the first attempt not handed back went out (kept by a retry, which clears dispatched_at);
   * null until such an attempt is retried. Lateness is that attempt's.
   */
  @Column({ name: 'first_dispatched_at', type: 'bigint', nullable: true, transformer: millis })
  firstDispatchedAt!: number | null;

  /**
   * How many of its attempts were handed back (sent ahead, never started by their executor:
   * retryRunAttempt's HANDED_BACK). Lateness is not theirs: while `attempt - handBacks` is 1 the
   * current attempt is the first that counts (domain firstAttemptLateness). Migration 1799400000480.
   */
  @Column({ name: 'hand_backs', type: 'int', default: 0 })
  handBacks!: number;

  @Column({ name: 'accepted_at', type: 'bigint', nullable: true, transformer: millis })
  acceptedAt!: number | null;

  /** When the handler started, as reported by the executor. */
  @Column({ name: 'started_at', type: 'bigint', nullable: true, transformer: millis })
  startedAt!: number | null;

  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: millis })
  finishedAt!: number | null;

  /**
   * Whose clock stamped finished_at on a SUCCEEDED / FAILED / TIMED_OUT end: `executor` when the
   * end is the executor's report with its time, `engine` when the engine decided it (a timeout, a
   * lost executor, a refused dispatch, a rejection, a fan-out's settling) or stamped an end reported
   * without a time (XXL-JOB). Null: not ended, cancelled or skipped (always Baton's), or ended
   * before migration 1799300000000 (the console then goes by the state).
   */
  @Column({ name: 'finished_clock', type: 'varchar', length: 8, nullable: true })
  finishedClock!: TimelineClock | null;

  /**
   * A withdrawn prepared fire that an engine may have sent (domain prepared-fires.ts): UNSETTLED
   * until its executor's word (or the engines' sweep) says whether it started; then NOT_STARTED
   * (its instant given back to the schedule), STARTED or UNKNOWN (its instant ran as prepared,
   * or is taken as such). NULL for every other run. Migration 1799400000000.
   */
  @Column({ name: 'withdrawal', type: 'varchar', length: 12, nullable: true })
  withdrawal!: WithdrawalState | null;

  @Column({ name: 'result', type: 'text', nullable: true, transformer: json })
  result!: StoredJson;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** Params of the flow this run belongs to, given when its root was triggered (JSON text); every run of the flow carries them. Null: none. */
  @Column({ name: 'flow_params', type: 'text', nullable: true })
  flowParams!: string | null;

  /** A child run's parents' results in its flow, by task name (JSON text, bounded); null for others. */
  @Column({ name: 'parent_results', type: 'text', nullable: true })
  parentResults!: string | null;

  /** A shard's index (0-based, `ctx.shardIndex`); null for other runs. */
  @Column({ name: 'shard_index', type: 'int', nullable: true })
  shardIndex!: number | null;

  /** A shard's `ctx.shardTotal`; on a fan-out run, how many shards it wrote; null for other runs. */
  @Column({ name: 'shard_total', type: 'int', nullable: true })
  shardTotal!: number | null;

  /** A broadcast shard runs on this executor only. */
  @Column({ name: 'pinned_executor_id', type: 'int', nullable: true })
  pinnedExecutorId!: number | null;

  /** 0–100, as last reported by the handler. */
  @Column({ type: 'int', nullable: true })
  progress!: number | null;

  /** When the current attempt times out (dispatched_at or accepted_at + timeout); null when not executing. */
  @Column({ name: 'deadline_at', type: 'bigint', nullable: true, transformer: millis })
  deadlineAt!: number | null;

  /** When START_LATE was raised for this run (once per run); null while not raised. */
  @Column({ name: 'late_alarmed_at', type: 'bigint', nullable: true, transformer: millis })
  lateAlarmedAt!: number | null;

  /** W3C traceparent of the span that made the run (console request, planner fire, parent's outcome); null when tracing is off. */
  @Column({ name: 'trace_parent', type: 'varchar', length: 55, nullable: true })
  traceParent!: string | null;

  /** Its concurrency key's value (domain runKeyOf), set when a claim admits or holds it; null for unkeyed runs and runs not claimed yet. */
  @Column({ name: 'run_key', type: 'varchar', length: 160, nullable: true })
  runKey!: string | null;

  /** The scope whose place it holds with run_key (domain keyScope: `t:<taskId>` or `g:<group>`, migration 1798400000000); null when it holds none: unkeyed, not claimed yet, bounded by rate alone, or ended before key groups. */
  @Column({ name: 'key_scope', type: 'varchar', length: 66, nullable: true })
  keyScope!: string | null;

  /** A COALESCING run's window end (debounce: its burst's first submission + maxWaitMs; throttle: its period's end): due_at never moves past it. Null for other runs. */
  @Column({ name: 'window_until', type: 'bigint', nullable: true, transformer: millis })
  windowUntil!: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: millis })
  updatedAt!: number;
}
