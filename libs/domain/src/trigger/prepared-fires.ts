import type { Millis, TaskDefinition, WithdrawalState } from '../types';

/**
 * Terminology: a **prepared fire** is a scheduled fire an engine made ready before its instant —
 * written by the planner (BATON_LOOK_AHEAD_MS ahead), claimed, or even sent to an executor that
 * holds it until the instant (BATON_SEND_AHEAD_MS). Withdrawing one gives its instant back to
 * the task's schedule: the planner plans it again from the task as it is now.
 */

/**
 * The definition fields a prepared fire carries or was acted on with: its instant (the schedule),
 * its params and priority (copied into the run row), where it goes and how it runs (read at its
 * claim, sent with it). Changing one makes the prepared fires outdated. Name, group, alarms,
 * retry, misfire and start-deadline settings are read when they apply, so a fire prepared
 * before such an edit already follows it.
 */
export const PREPARED_FIRE_FIELDS = [
  'trigger',
  'startAt',
  'endAt',
  'maxFires',
  'calendarName',
  'params',
  'priority',
  'executorApp',
  'handler',
  'timeoutMs',
  'concurrencyPolicy',
  'fanOut',
] as const satisfies ReadonlyArray<keyof TaskDefinition>;

/**
 * An edit reaches the prepared fires due more than this after it; those nearer run as they were
 * prepared. A withdrawn fire that was sent ahead is aborted at its executor by a notice (console
 * → engine → executor, a few milliseconds on one network), and its instant is planned again only
 * once its executor says it dropped it unstarted (WithdrawalState): a notice late for the instant
 * costs that instant's new definition, never a second fire. A second leaves room for the notice
 * on a loaded cluster, so that an edit nearly always reaches the fires it withdraws.
 */
export const EDIT_REACHES_FIRES_AFTER_MS = 1_000;

/**
 * Which prepared fires a save withdraws: those whose instant is after the returned time, or none
 * (null). A pause withdraws every fire whose instant has not come — a paused task fires no more;
 * an edit of a field a fire carries withdraws those due more than EDIT_REACHES_FIRES_AFTER_MS
 * ahead, so they run as the task now says. Nothing else touches them.
 */
export function preparedFiresWithdrawnAfter(before: TaskDefinition, after: TaskDefinition, now: Millis): Millis | null {
  if (after.paused) return before.paused ? null : now;
  const outdated = PREPARED_FIRE_FIELDS.some((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  return outdated ? now + EDIT_REACHES_FIRES_AFTER_MS : null;
}

/** A task's planner state: how many fires it has had, and its next fire time (null: none planned to come). */
export interface FireCursor {
  fireCount: number;
  nextFireAt: Millis | null;
}

/**
 * The planner state once prepared fires at `withdrawn` instants are withdrawn: they no longer
 * count as fired (maxFires), and the next fire is the earliest of them if that comes first — so
 * the planner plans each of them again (from the definition saved, or when a paused task
 * resumes: then under its misfire policy if the instant has passed).
 */
export function rewindForWithdrawn(cursor: FireCursor, withdrawn: readonly Millis[]): FireCursor {
  if (withdrawn.length === 0) return cursor;
  // A loop, not Math.min(...): a paused task may give back more instants than a call takes arguments.
  const earliest = withdrawn.reduce((a, b) => Math.min(a, b));
  return {
    fireCount: Math.max(0, cursor.fireCount - withdrawn.length),
    nextFireAt: cursor.nextFireAt === null ? earliest : Math.min(cursor.nextFireAt, earliest),
  };
}

/** How an unsettled withdrawal settles (WithdrawalState, types.ts). */
export type WithdrawalSettled = Exclude<WithdrawalState, 'UNSETTLED'>;

/**
 * What an executor's answer to the abort of a withdrawn fire settles (docs/EXECUTOR-PROTOCOL.md):
 * 202 QUEUED — dropped before it started; 202 RUNNING — it had started. Anything else settles
 * nothing: 404 FINISHED may be an attempt another engine's abort dropped a moment before (every
 * engine of the group sends one) as well as one that ran — its final callback tells which; 404
 * UNKNOWN, no answer, or an XXL-JOB kill's status say nothing of a start.
 */
export function settledByAbortAnswer(answer: { status: number; state: string | null } | null): WithdrawalSettled | null {
  if (answer === null || answer.status !== 202) return null;
  if (answer.state === 'QUEUED') return 'NOT_STARTED';
  return answer.state === 'RUNNING' ? 'STARTED' : null;
}

/**
 * What a callback of a withdrawn fire's attempt settles: a final ABORTED without `startedAt` —
 * dropped before it started (an abort, or a sent-ahead lease run out); anything else — an
 * interim report, a start time, a handler's SUCCEEDED or FAILED — means it started.
 */
export function settledByCallback(cb: { outcome?: string; startedAt?: number }): WithdrawalSettled {
  return cb.outcome === 'ABORTED' && cb.startedAt === undefined ? 'NOT_STARTED' : 'STARTED';
}

/**
 * What the engines' sweep settles of a withdrawal no word came for (its executor dead, or the
 * abort and callbacks lost), once its instant is past by `settleAfterMs`:
 * - NOT_STARTED when it provably never started: its executor keeps the sent-ahead lease
 *   (`executor.keepsLease`, protocol 3) and its last answered heartbeat (`heartbeatAt`, which
 *   only moves forward and is written before its ack leaves) is more than `leaseMs` (the lease
 *   and a margin for the clocks) before the instant — it let the fire go unstarted then, and no
 *   later heartbeat can change a start that did not happen;
 * - UNKNOWN once the run's deadline (its instant when it has none) is `settleAfterMs` past: a
 *   callback would have come by then, so it is taken as run as prepared; never twice beats late;
 * - else null: wait (a callback may still come).
 */
export function settledBySweep(
  fire: { instant: Millis; deadlineAt: Millis | null; executor: { keepsLease: boolean; heartbeatAt: Millis } | null },
  rule: { now: Millis; leaseMs: Millis; settleAfterMs: Millis },
): WithdrawalSettled | null {
  if (rule.now < fire.instant + rule.settleAfterMs) return null;
  if (fire.executor?.keepsLease && fire.executor.heartbeatAt + rule.leaseMs < fire.instant) return 'NOT_STARTED';
  return rule.now >= Math.max(fire.instant, fire.deadlineAt ?? 0) + rule.settleAfterMs ? 'UNKNOWN' : null;
}
