import type { EntityManager } from 'typeorm';
import type { AlarmType, RunState } from '@baton/domain';
import { parseAlarmTypes } from './run-attempt-row';
import { dialectOf, execute, num, numOrNull, placeholders, type Dialect } from '../sql';

export interface LateRunRow {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  state: RunState;
  attempt: number;
  scheduledAt: number;
  /** The attempt's instant (instant_at, else due_at): a retry's lateness is measured from it. */
  dueAt: number;
  /** When its keys admitted it, if they held it back (runs.admitted_at: a rate key's token, a concurrency key's place): its lateness is measured from it. */
  admittedAt: number | null;
  /** The instant its lateness is measured from (LATE_FROM): its admission's, else its fire time (attempt 1) or its instant. */
  lateFrom: number;
  startDeadlineMs: number;
  /** null: every type. */
  alarmTypes: AlarmType[] | null;
}

/**
 * The instant a run's start deadline counts from — the rule of START_LATE:
 * - a run its keys held back (admitted_at): its token's time when it waited for its rate key's
 *   token (deferRateKeyRuns), the time its concurrency key gave it a place when it was HELD
 *   (releaseHeldKeyRuns; not scanned while HELD). The wait is the task's own rule (`rateLimit`,
 *   `concurrency`), as a wait for a person's approval (its fire time becomes the approval's) is:
 *   it is late only when not sent a start deadline after its admission — a dispatch trouble met
 *   once admitted counts from there;
 * - else attempt 1: its fire time (scheduled_at). A first attempt deferred by dispatch trouble
 *   (deferRunDispatch: no executor, all busy, a refusal) or given back by an engine that died
 *   stays measured from its fire time: it IS late;
 * - else (a retry): its own due time (instant_at, else due_at). A retry waits for its backoff on
 *   purpose; it is late when not sent within the start deadline of that (instant_at keeps it when
 *   a dispatch back-off moved due_at). A retry clears admitted_at: an admission of an earlier
 *   attempt does not carry over.
 * Never before the fire time (a retry is never due before its attempt's instant, domain
 * retryDecision; a token is taken for the instant its run is due, never before; a place is given
 * after the run was claimed), which the scan's
 * bound below relies on.
 */
const LATE_FROM = 'CASE WHEN r.admitted_at IS NOT NULL THEN r.admitted_at WHEN r.attempt = 1 THEN r.scheduled_at ELSE COALESCE(r.instant_at, r.due_at) END';

/**
 * Watchdog START_LATE: runs of my groups not dispatched by their start deadline and not
 * alarmed yet.
 *
 *   SELECT …, <LATE_FROM> AS late_from FROM runs r JOIN tasks t ON t.id = r.task_id
 *    WHERE r.engine_group IN (…) AND r.state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
 *      AND r.late_alarmed_at IS NULL AND r.dispatched_at IS NULL
 *      AND ((r.admitted_at IS NULL AND r.scheduled_at < :firedBefore) OR r.admitted_at < :firedBefore)
 *      AND <LATE_FROM> + t.start_deadline_ms < :now
 *    LIMIT ?
 *
 * Shape: ix_runs_late (engine_group, state, late_alarmed_at, admitted_at, scheduled_at) gives two
 * ranges per (group, state) over runs not alarmed yet: those that never waited for a token, fired
 * before `firedBefore`, and those that did, whose token was due before it — runs planned ahead
 * (future scheduled_at), runs already alarmed, runs still waiting for their tokens and the whole
 * history (terminal states) are not read. The deadline is per task, hence the join for the last
 * test. `firedBefore` is `now` less the least start deadline of all tasks
 * (readLeastStartDeadline): a run is late only once the instant it is measured from (LATE_FROM),
 * never before its fire time nor its admission when it has one, is a deadline old, so a run
 * fired (or given its token) more recently cannot be. Without that bound every due run of a
 * backlog was read with its task on every tick of every engine: at 2,000 batched submissions a
 * second, 4,000 rows a tick and ~10 % of MariaDB's time (docs/BENCHMARKS.md, on demand); and
 * without admitted_at in the index, a rate key's backlog (10,000 runs waiting for their tokens) was
 * read on every tick, 12 to 30 ms of it on a loaded 2-core machine (2026-12-04). A retry waiting
 * for its backoff is still in its range (its fire time is past) and passed over by the last test.
 * `dispatched_at IS NULL`: a run handed back to PENDING after its
 * engine died mid-dispatch (releaseRuns keeps dispatched_at) did start on time; its re-send is
 * no START_LATE. A failed dispatch (deferRunDispatch) and a retry clear dispatched_at.
 */
/**
 * The scan for `groups` groups — exported so the plan test EXPLAINs this very text. FORCE INDEX on
 * MariaDB: left to itself it read ix_runs_deadline's (engine_group, state) ranges, every due run,
 * and the fire-time bound bought nothing.
 */
export function findLateRunsSql(groups: number, dialect: Dialect): string {
  return `SELECT r.id, r.tenant_id, r.task_id, t.name AS task_name, r.state, r.attempt, r.scheduled_at, COALESCE(r.instant_at, r.due_at) AS due_at,
            r.admitted_at, ${LATE_FROM} AS late_from, t.start_deadline_ms, t.alarm_types
       FROM runs r ${dialect === 'mysql' ? 'FORCE INDEX (ix_runs_late)' : ''} JOIN tasks t ON t.id = r.task_id
      WHERE r.engine_group IN (${placeholders(groups)}) AND r.state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
        AND r.late_alarmed_at IS NULL AND r.dispatched_at IS NULL
        AND ((r.admitted_at IS NULL AND r.scheduled_at < ?) OR r.admitted_at < ?)
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
    admittedAt: numOrNull(r.admitted_at),
    lateFrom: num(r.late_from),
    startDeadlineMs: num(r.start_deadline_ms),
    alarmTypes: parseAlarmTypes(r.alarm_types),
  }));
}
