import type { AlarmType, RetryPolicy, RunCause, RunState, WithdrawalState } from '@baton/domain';
import { num, numOrNull } from '../sql';
import type { RunKeyRef } from '../keys/lock-run-key';

/**
 * What the engine needs to end a run's attempt — from a callback, a timeout or a dead executor:
 * the run, its task's retry policy and alarm types, and the executor that has it. Read by
 * findRunsForCallback, findOverdueRuns and findOrphanedRuns with the same column list.
 */
export interface RunAttemptRow {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  state: RunState;
  attempt: number;
  cause: RunCause;
  /** The flow's root run id (a root run's is its own id; null only on rows written before flows were set). */
  flowId: number | null;
  executorId: number | null;
  /** Base URL of the executor (null when unknown). */
  executorUrl: string | null;
  scheduledAt: number;
  /** The instant the attempt was to start at (instant_at, else due_at): a start before it is an early start. */
  instant: number;
  startedAt: number | null;
  retry: RetryPolicy;
  /** The task's alarm types (which alarms it raises); null when unreadable — then every type. */
  alarmTypes: AlarmType[] | null;
  /** The task's alarm silence window (tasks.alarm_silence_ms; 0: repeats are never counted into one alarm). */
  alarmSilenceMs: number;
  /** What the run's end may have to do after it (see FollowUpHints). */
  followUps: FollowUpHints;
  /** A shard's fan-out run (cause SHARD): its end may end that run; null for other runs. */
  shardOf: number | null;
  /** The run's trace context (runs.trace_parent), for the log lines about it; null: untraced. */
  traceParent: string | null;
  /** Its concurrency or rate key's value (runs.run_key); null: no key. */
  runKey: string | null;
  /** Whose key's place it holds (runs.key_scope: its task's or its key group's): its end frees that place; null: it holds none. */
  keyScope: string | null;
  /** A withdrawn prepared fire's withdrawal (runs.withdrawal, written with its CANCELLED); null for every other run. */
  withdrawal: WithdrawalState | null;
}

/**
 * Whether ending a run can have follow-ups at all: its task has children in the DAG, or is
 * FIXED_DELAY. Read with the run (an index probe on uq_task_dependencies_edge and a column of
 * the task row it joins anyway), so the follow-ups of the common task — neither — read nothing:
 * in a 1,000-run burst that was 1,120 of its ~3,100 statements. An edge added meanwhile is seen
 * by the next run's end, as one added a moment later would be.
 */
export interface FollowUpHints {
  children: boolean;
  fixedDelay: boolean;
}

/** Columns of RunAttemptRow: `runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id`. */
export const RUN_ATTEMPT_COLUMNS = `r.id, r.tenant_id, r.task_id, t.name AS task_name, r.state, r.attempt, r.cause, r.flow_id,
       r.executor_id, e.url AS executor_url, r.scheduled_at, COALESCE(r.instant_at, r.due_at) AS instant, r.started_at, r.parent_run_id, r.trace_parent, r.run_key, r.key_scope, r.withdrawal,
       t.retry_max_attempts, t.retry_backoff_base_ms, t.retry_backoff_max_ms, t.retry_jitter_permille, t.alarm_types, t.alarm_silence_ms, t.trigger_kind,
       EXISTS (SELECT 1 FROM task_dependencies d WHERE d.parent_task_id = r.task_id) AS has_children`;

export function toRunAttemptRow(r: Record<string, unknown>): RunAttemptRow {
  return {
    runId: num(r.id),
    tenantId: String(r.tenant_id),
    taskId: num(r.task_id),
    taskName: String(r.task_name),
    state: r.state as RunState,
    attempt: num(r.attempt),
    cause: r.cause as RunCause,
    flowId: numOrNull(r.flow_id),
    executorId: numOrNull(r.executor_id),
    executorUrl: (r.executor_url as string | null) ?? null,
    scheduledAt: num(r.scheduled_at),
    instant: num(r.instant),
    startedAt: numOrNull(r.started_at),
    retry: {
      maxAttempts: num(r.retry_max_attempts),
      backoffBaseMs: num(r.retry_backoff_base_ms),
      backoffMaxMs: num(r.retry_backoff_max_ms),
      jitter: num(r.retry_jitter_permille) / 1000,
    },
    alarmTypes: parseAlarmTypes(r.alarm_types),
    alarmSilenceMs: parseAlarmSilenceMs(r.alarm_silence_ms),
    // A shard's end is its fan-out run's business: the task's children and next fixed-delay fire follow that run's end.
    followUps: r.cause === 'SHARD' ? { children: false, fixedDelay: false } : { children: Number(r.has_children) > 0, fixedDelay: r.trigger_kind === 'FIXED_DELAY' },
    shardOf: r.cause === 'SHARD' ? numOrNull(r.parent_run_id) : null,
    traceParent: (r.trace_parent as string | null) ?? null,
    runKey: (r.run_key as string | null) ?? null,
    keyScope: (r.key_scope as string | null) ?? null,
    withdrawal: (r.withdrawal as WithdrawalState | null) ?? null,
  };
}

/** The key whose place the run holds (its end, unless a retry's wait, frees it for a held run), or null: it holds none. */
export function keyPlaceOf(run: Pick<RunAttemptRow, 'tenantId' | 'runKey' | 'keyScope'>): RunKeyRef | null {
  return run.keyScope === null || run.runKey === null ? null : { tenantId: run.tenantId, scope: run.keyScope, key: run.runKey };
}

/** tasks.alarm_silence_ms → the window in ms; 0 (never collapse) when absent or not a positive number. */
export function parseAlarmSilenceMs(value: unknown): number {
  const ms = Number(value ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** tasks.alarm_types (JSON array text) → the list; null when absent or unreadable (then: every type). */
export function parseAlarmTypes(value: unknown): AlarmType[] | null {
  if (typeof value !== 'string') return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? (parsed as AlarmType[]) : null;
  } catch {
    return null;
  }
}
