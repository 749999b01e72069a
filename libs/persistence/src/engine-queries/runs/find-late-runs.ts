import type { EntityManager } from 'typeorm';
import type { AlarmType, RunState, StartLatePolicy } from '@baton/domain';
import { parseAlarmSilenceMs, parseAlarmTypes } from './run-attempt-row';
import { dialectOf, execute, num, numOrNull, placeholders, type Dialect } from '../sql';

export interface LateRunRow {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  state: RunState;
  attempt: number;
  scheduledAt: number;
  /** The attempt's instant (instant_at, else due_at). */
  dueAt: number;
  /** runs.late_from_at: a retry's instant, or when its keys admitted it after holding it back; null: its fire time. */
  lateFromAt: number | null;
  /** The instant its lateness is measured from (LATE_FROM). */
  lateFrom: number;
  startDeadlineMs: number;
  /** The task's tasks.on_start_late: ALARM, or GIVE_UP (giveUpLateRun ends the run). */
  onStartLate: StartLatePolicy;
  /** The task's executor app (a given-up run's error names it). */
  executorApp: string;
  /** runs.executor_id: an executor that may have the run (a dispatch that got no answer); such a run is never given up. */
  executorId: number | null;
  /** runs.error: why it waits (a dispatch back-off's reason, or its last attempt's failure); null when it says nothing. */
  error: string | null;
  /** null: every type. */
  alarmTypes: AlarmType[] | null;
  /** The task's alarm silence window (0: never collapsed): with alarmTypes, the alarm reads nothing more. */
  alarmSilenceMs: number;
}

/** What a run's lateness counts from (LATE_FROM), for the alarm to say. */
export type LateFromKind = 'fire' | 'retry' | 'admission';

/**
 * Which instant a late run is measured from: a retry's late_from_at is its instant until its keys
 * admit it later (a token's time, a place); then it is that admission's, as on a first attempt.
 */
export function lateFromKind(run: Pick<LateRunRow, 'attempt' | 'dueAt' | 'lateFromAt'>): LateFromKind {
  if (run.lateFromAt === null) return 'fire';
  return run.attempt > 1 && run.lateFromAt === run.dueAt ? 'retry' : 'admission';
}

/**
 * The instant a run's start deadline counts from — the rule of START_LATE (and of the lateness
 * the engine's histogram and the task statistics show):
 * - runs.late_from_at when set: a retry's instant (retryRunAttempt: it waits for its backoff on
 *   purpose, and is late when not sent a start deadline after it; instant_at keeps it when a
 *   dispatch back-off moves due_at, late_from_at too), or when the run's keys admitted it after
 *   holding it back — its token's time when it waited for its rate key's token
 *   (deferRateKeyRuns), the time its concurrency key gave it a place when it was HELD
 *   (releaseHeldKeyRuns; not scanned while HELD). Those waits are the task's own rules
 *   (`retry`, `rateLimit`, `concurrency`), as a wait for a person's approval is (its fire time
 *   becomes the approval's): a dispatch trouble met after them counts from there;
 * - else the fire time (scheduled_at). A first attempt deferred by dispatch trouble
 *   (deferRunDispatch: no executor, all busy, a refusal) or given back by an engine that died
 *   stays measured from its fire time: it IS late.
 * Never before the fire time (a retry is never due before its attempt's instant, domain
 * retryDecision; a token is taken for the instant its run is due, never before; a place is given
 * after the run was claimed), which the scan's bound below relies on.
 */
const LATE_FROM = 'COALESCE(r.late_from_at, r.scheduled_at)';

/**
 * Watchdog START_LATE: runs of my groups not dispatched by their start deadline and not
 * alarmed yet (or given up: a GIVE_UP task's, giveUpLateRun), with their task's on_start_late.
 *
 *   SELECT …, COALESCE(r.late_from_at, r.scheduled_at) AS late_from, t.on_start_late, … FROM runs r JOIN tasks t ON t.id = r.task_id
 *    WHERE r.engine_group IN (…) AND r.state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
 *      AND r.late_alarmed_at IS NULL AND r.dispatched_at IS NULL
 *      AND ((r.late_from_at IS NULL AND r.scheduled_at < :firedBefore) OR r.late_from_at < :firedBefore)
 *      AND COALESCE(r.late_from_at, r.scheduled_at) + t.start_deadline_ms < :now
 *    LIMIT ?
 *
 * Shape: ix_runs_late (engine_group, state, late_alarmed_at, late_from_at, scheduled_at) gives two
 * ranges per (group, state) over runs not alarmed yet: first attempts fired before `firedBefore`,
 * and runs whose lateness counts from late_from_at before it — runs planned ahead (future
 * scheduled_at), runs already alarmed, retries still in their backoff, runs still waiting for
 * their tokens and the whole history (terminal states) are not read. The deadline is per task,
 * hence the join for the last test. `firedBefore` is `now` less the least start deadline of all
 * tasks (readLeastStartDeadline): a run is late only once the instant it is measured from is a
 * deadline old, so one measured from a later instant cannot be. Without that bound every due run
 * of a backlog was read with its task on every tick of every engine: at 2,000 batched submissions
 * a second, 4,000 rows a tick and ~10 % of MariaDB's time (docs/BENCHMARKS.md, on demand); with
 * the fire time alone in the index, a rate key's backlog (10,000 runs waiting for their tokens)
 * was read on every tick, 12 to 30 ms of it on a loaded 2-core machine (2026-12-04), and so were a
 * tenant's retries in their backoff: 10,000 of them, 22 ms a scan (median of 60), against 0.7 ms
 * with them out of the ranges (2026-12-04, the same database, a CI run beside it). `dispatched_at IS NULL`: a run handed back to PENDING after
 * its engine died mid-dispatch (releaseRuns keeps dispatched_at) did start on time; its re-send
 * is no START_LATE. A failed dispatch (deferRunDispatch) and a retry clear dispatched_at.
 */
/**
 * The scan for `groups` groups — exported so the plan test EXPLAINs this very text. FORCE INDEX on
 * MariaDB: left to itself it read ix_runs_deadline's (engine_group, state) ranges, every due run,
 * and the fire-time bound bought nothing.
 */
export function findLateRunsSql(groups: number, dialect: Dialect): string {
  return `SELECT r.id, r.tenant_id, r.task_id, t.name AS task_name, r.state, r.attempt, r.scheduled_at, COALESCE(r.instant_at, r.due_at) AS due_at,
            r.late_from_at, ${LATE_FROM} AS late_from, t.start_deadline_ms, t.on_start_late, t.executor_app, r.executor_id, r.error, t.alarm_types, t.alarm_silence_ms
       FROM runs r ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_late)' : ''} JOIN tasks t ON t.id = r.task_id
      WHERE r.engine_group IN (${placeholders(groups)}) AND r.state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
        AND r.late_alarmed_at IS NULL AND r.dispatched_at IS NULL
        AND ((r.late_from_at IS NULL AND r.scheduled_at < ?) OR r.late_from_at < ?)
        AND (${LATE_FROM}) + t.start_deadline_ms < ?
      LIMIT ?`;
}

export async function findLateRuns(manager: EntityManager, input: { groups: readonly string[]; now: number; firedBefore: number; limit: number }): Promise<LateRunRow[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(manager, findLateRunsSql(input.groups.length, dialectOf(manager)), [...input.groups, Math.min(input.firedBefore, input.now), Math.min(input.firedBefore, input.now), input.now, input.limit]);
  return rows.map((r) => ({
    runId: num(r.id),
    tenantId: String(r.tenant_id),
    taskId: num(r.task_id),
    taskName: String(r.task_name),
    state: r.state as RunState,
    attempt: num(r.attempt),
    scheduledAt: num(r.scheduled_at),
    dueAt: num(r.due_at),
    lateFromAt: numOrNull(r.late_from_at),
    lateFrom: num(r.late_from),
    startDeadlineMs: num(r.start_deadline_ms),
    onStartLate: r.on_start_late === 'GIVE_UP' ? 'GIVE_UP' : 'ALARM',
    executorApp: String(r.executor_app),
    executorId: numOrNull(r.executor_id),
    error: (r.error as string | null) ?? null,
    alarmTypes: parseAlarmTypes(r.alarm_types),
    alarmSilenceMs: parseAlarmSilenceMs(r.alarm_silence_ms),
  }));
}
