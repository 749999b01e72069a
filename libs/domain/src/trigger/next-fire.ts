import type { Millis, Schedule } from '../types';
import { exclusionTest } from '../calendar/is-excluded';
import { startOfNextLocalDay } from '../time/time-zone';
import { nextCronTime } from './cron';
import { cronDstOf, type CronDst } from './cron-dst';
import { MissingAnchorError } from './missing-anchor-error';

/**
 * Trigger math: which instants a schedule fires at.
 *
 * Rules shared by every kind:
 * - `startAt` is inclusive (a fire exactly at startAt happens), `endAt` is inclusive too.
 * - A fire time whose local date, in the *calendar's* time zone, is on the exclusion calendar
 *   is not a fire time at all: it is skipped and does not count toward maxFires.
 * - maxFires caps the fire times consumed so far (`fireCount`) plus the ones returned.
 * - MANUAL and EVENT never fire by themselves.
 */

/**
 * How many excluded fire times one search skips before it gives up and reports "no further
 * fire". Every skip jumps to the next local day, so this is ten years of consecutive excluded
 * fire days: a calendar like that is a mistake, and a bounded answer beats a hung planner.
 * (Calendars are finite lists of dates, so a search would end anyway; the bound keeps the cost
 * of one search predictable.)
 */
export const MAX_EXCLUDED_SKIPS = 3_660;

/** A lower bound on fire times: `at` itself included or not. */
interface Bound {
  at: Millis;
  inclusive: boolean;
}

/** The fire times strictly after `after`, in order, at most `limit` of them. */
export function nextFireTimes(schedule: Schedule, after: Millis, limit: number): Millis[] {
  // An unbounded schedule with an unbounded limit would never return.
  if (!Number.isFinite(limit)) throw new RangeError(`limit must be a finite number, got ${limit}`);
  const count = Math.min(Math.floor(limit), remainingFires(schedule));
  const fires: Millis[] = [];
  if (!(count > 0)) return fires;
  if (schedule.trigger.kind === 'FIXED_DELAY') {
    // Only the first fire is known in advance; the others wait for the previous run to end.
    const first = schedule.fireCount === 0 ? firstFixedDelayFire(schedule) : null;
    if (first !== null && first > after) fires.push(first);
    return fires;
  }
  let bound: Bound = { at: after, inclusive: false };
  while (fires.length < count) {
    const t = fireTimeFrom(schedule, bound);
    if (t === null) break;
    fires.push(t);
    bound = { at: t, inclusive: false };
  }
  return fires;
}

/** The first fire time strictly after `after`, or null when the schedule has no more. */
export function nextFireTime(schedule: Schedule, after: Millis): Millis | null {
  return nextFireTimes(schedule, after, 1)[0] ?? null;
}

/**
 * The first fire time at or after `notBefore`: what a new (or re-enabled) task stores as its
 * next fire time, e.g. `firstFireTime(schedule, createdAt)`. Inclusive, unlike nextFireTime,
 * so a FIXED_RATE task anchored at its creation fires at that very instant.
 */
export function firstFireTime(schedule: Schedule, notBefore: Millis): Millis | null {
  if (remainingFires(schedule) <= 0) return null;
  if (schedule.trigger.kind === 'FIXED_DELAY') {
    const first = schedule.fireCount === 0 ? firstFixedDelayFire(schedule) : null;
    return first !== null && first >= notBefore ? first : null;
  }
  return fireTimeFrom(schedule, { at: notBefore, inclusive: true });
}

/**
 * FIXED_DELAY: the next fire, `delayMs` after the previous run finished; with no previous run
 * (null), the first fire, at the anchor (startAt, else createdAt).
 *
 * An excluded date moves the fire along the same delay grid to the first point on a
 * non-excluded local day (finished + k × delay), so the delay stays a lower bound and the
 * task resumes as soon as the excluded day is over.
 */
export function nextFixedDelayFire(schedule: Schedule, previousFinishedAt: Millis | null): Millis | null {
  if (schedule.trigger.kind !== 'FIXED_DELAY') {
    throw new TypeError(`nextFixedDelayFire needs a FIXED_DELAY trigger, not ${schedule.trigger.kind}`);
  }
  if (remainingFires(schedule) <= 0) return null;
  if (previousFinishedAt === null) return firstFixedDelayFire(schedule);
  return delayGridFrom(schedule, previousFinishedAt + schedule.trigger.delayMs);
}

/** Fires left before maxFires is reached (Infinity when unlimited). ONCE has at most one. */
export function remainingFires(schedule: Schedule): number {
  const max = schedule.trigger.kind === 'ONCE' ? Math.min(schedule.maxFires ?? 1, 1) : schedule.maxFires;
  return max === null ? Infinity : Math.max(0, max - schedule.fireCount);
}

/**
 * For a planner walking the timeline: the fire time after `t`, ignoring maxFires (the caller
 * counts). FIXED_DELAY has none: its next fire waits for the run to finish.
 */
export function followingFireTime(schedule: Schedule, t: Millis): Millis | null {
  if (schedule.trigger.kind === 'FIXED_DELAY') return null;
  return fireTimeFrom(schedule, { at: t, inclusive: false });
}

/**
 * For a planner resuming from a stored next fire time: the first fire time at or after it
 * under the *current* schedule, ignoring maxFires. The task may have been edited since the
 * time was stored (new expression, end time or calendar), so the stored time is re-checked
 * rather than trusted. A FIXED_DELAY time is not on any grid but the run-finish one, so it
 * stands as it is unless an exclusion or the end time moves it.
 */
export function resumeFireTime(schedule: Schedule, stored: Millis): Millis | null {
  if (schedule.trigger.kind === 'FIXED_DELAY') return delayGridFrom(schedule, stored);
  return fireTimeFrom(schedule, { at: stored, inclusive: true });
}

function firstFixedDelayFire(schedule: Schedule): Millis | null {
  return delayGridFrom(schedule, anchorOf(schedule));
}

/** The first point of the grid base + k × delay (k ≥ 0) that is at/after startAt and allowed. */
function delayGridFrom(schedule: Schedule, base: Millis): Millis | null {
  if (schedule.trigger.kind !== 'FIXED_DELAY') return null;
  const delay = schedule.trigger.delayMs;
  const raw = (bound: Bound) => gridTime(base, delay, bound);
  return search(schedule, raw, withStart(schedule, { at: base, inclusive: true }));
}

/** The first fire time satisfying `bound` (any kind but FIXED_DELAY), ignoring maxFires. */
function fireTimeFrom(schedule: Schedule, bound: Bound): Millis | null {
  const trigger = schedule.trigger;
  switch (trigger.kind) {
    case 'MANUAL':
    case 'EVENT':
    case 'FIXED_DELAY':
      return null;
    case 'ONCE':
      return search(schedule, (b) => (satisfies(trigger.at, b) ? trigger.at : null), withStart(schedule, bound));
    case 'FIXED_RATE': {
      const anchor = anchorOf(schedule);
      return search(schedule, (b) => gridTime(anchor, trigger.intervalMs, b), withStart(schedule, bound));
    }
    case 'CRON': {
      const dst = cronDstOf(trigger);
      return search(schedule, (b) => cronTime(trigger.expression, trigger.timeZone, dst, b), withStart(schedule, bound));
    }
  }
}

/**
 * Walks raw trigger times from `bound`, skipping calendar-excluded ones, until one is allowed
 * or the end time / skip budget is passed. An excluded time moves the bound to the start of
 * the next local day in the calendar's zone, so a whole excluded day costs one step however
 * often the trigger fires.
 */
function search(schedule: Schedule, raw: (bound: Bound) => Millis | null, start: Bound): Millis | null {
  const excluded = exclusionTest(schedule.calendar);
  let bound = start;
  for (let skips = 0; skips <= MAX_EXCLUDED_SKIPS; skips++) {
    const t = raw(bound);
    if (t === null) return null;
    if (schedule.endAt !== null && t > schedule.endAt) return null;
    if (!excluded(t)) return t;
    // exclusionTest only says yes when there is a calendar.
    const zone = schedule.calendar!.timeZone;
    bound = { at: startOfNextLocalDay(t, zone), inclusive: true };
  }
  return null;
}

/** Tightens a bound by the schedule's inclusive start time. */
function withStart(schedule: Schedule, bound: Bound): Bound {
  const start = schedule.startAt;
  if (start === null || start < bound.at) return bound;
  if (start > bound.at) return { at: start, inclusive: true };
  return bound; // equal: startAt admits it, the bound decides
}

function satisfies(t: Millis, bound: Bound): boolean {
  return bound.inclusive ? t >= bound.at : t > bound.at;
}

/** The first anchor + k × step (k ≥ 0) satisfying the bound. */
function gridTime(anchor: Millis, step: number, bound: Bound): Millis {
  // Validation refuses such steps; a row edited behind its back must fail loudly, not spin on NaN.
  if (!(step > 0) || !Number.isFinite(step)) throw new RangeError(`interval must be a positive number of ms, got ${step}`);
  const offset = (bound.at - anchor) / step;
  const k = bound.inclusive ? Math.ceil(offset) : Math.floor(offset) + 1;
  return anchor + Math.max(0, k) * step;
}

function cronTime(expression: string, timeZone: string, dst: CronDst, bound: Bound): Millis | null {
  if (!bound.inclusive) return nextCronTime(expression, timeZone, bound.at, dst);
  // Croner is strictly-after and whole-second; ask from just before and drop anything early.
  let t = nextCronTime(expression, timeZone, bound.at - 1, dst);
  while (t !== null && t < bound.at) t = nextCronTime(expression, timeZone, t, dst);
  return t;
}

function anchorOf(schedule: Schedule): Millis {
  const anchor = schedule.startAt ?? schedule.createdAt ?? null;
  if (anchor === null) throw new MissingAnchorError(schedule.trigger.kind);
  return anchor;
}
