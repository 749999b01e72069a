import type { Millis, TaskDefinition } from '../types';

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
 * → engine → executor, a few milliseconds on one network); one that could not arrive before the
 * instant would start, and its instant be planned again under the new definition: two fires of
 * one instant. A second leaves room for that notice on a loaded cluster.
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
