import { firstFireTime, remainingFires, rewindForWithdrawn } from '@baton/domain';
import type { ExclusionCalendar, FieldError, FireCursor, Schedule, TaskDefinition } from '@baton/domain';

/** The fields of a definition that decide its fire times: changing one recomputes nextFireAt. */
export const SCHEDULE_FIELDS = ['trigger', 'startAt', 'endAt', 'maxFires', 'calendarName'] as const;

export function scheduleChanged(before: TaskDefinition, after: TaskDefinition): boolean {
  return SCHEDULE_FIELDS.some((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
}

export function scheduleOf(
  definition: TaskDefinition,
  state: { fireCount: number; createdAt: number },
  calendar: ExclusionCalendar | null,
): Schedule {
  return {
    trigger: definition.trigger,
    startAt: definition.startAt,
    endAt: definition.endAt,
    maxFires: definition.maxFires,
    fireCount: state.fireCount,
    calendar,
    createdAt: state.createdAt,
  };
}

/**
 * The next fire time a task stores when it is created, or when its schedule is edited: the
 * first fire time at or after `now` (domain `firstFireTime`).
 *
 * FIXED_DELAY's first fire is at its start time; when that has passed (or there is none) it is
 * now. A FIXED_DELAY task that was one before the save keeps its chain: while a scheduled run of
 * it is under way (`chainUnderWay`), that run's end places the next fire (the engine, with the
 * delay as saved), since a fire placed now would run beside it; while it waits for its next fire,
 * that fire stands unless the trigger changed. A chain that ended (maxFires reached, end time
 * passed) starts again as a new task's.
 */
export function nextFireAtFor(schedule: Schedule, now: number, stored: { nextFireAt: number | null; kindBefore: string | null; chainUnderWay: boolean }): number | null {
  if (schedule.trigger.kind === 'FIXED_DELAY') {
    if (stored.chainUnderWay) return stored.nextFireAt;
    if (stored.kindBefore === 'FIXED_DELAY' && schedule.fireCount > 0 && stored.nextFireAt !== null) return stored.nextFireAt;
    if (remainingFires(schedule) <= 0) return null;
    const start = Math.max(schedule.startAt ?? now, now);
    return firstFireTime({ ...schedule, fireCount: 0, startAt: start }, now);
  }
  return firstFireTime(schedule, now);
}

/**
 * A task that could never fire is refused, naming the field that makes it so (a one-shot in
 * the past, an end time already passed, maxFires already reached). MANUAL and EVENT tasks never
 * fire by themselves and are fine.
 */
export function neverFiresProblem(schedule: Schedule, nextFireAt: number | null, now: number): FieldError | null {
  const trigger = schedule.trigger;
  if (nextFireAt !== null || trigger.kind === 'MANUAL' || trigger.kind === 'EVENT') return null;
  if (remainingFires(schedule) <= 0) {
    return { field: 'maxFires', reason: `is already reached (the task fired ${schedule.fireCount} times), so the task would never fire` };
  }
  if (trigger.kind === 'ONCE' && trigger.at < now) return { field: 'trigger.at', reason: 'is in the past, so the task would never fire' };
  if (schedule.endAt !== null && schedule.endAt < now) return { field: 'endAt', reason: 'is in the past, so the task would never fire' };
  if (schedule.calendar !== null) {
    return { field: 'calendarName', reason: 'excludes every fire time the trigger yields, so the task would never fire' };
  }
  return { field: 'trigger', reason: 'yields no fire time from now on, so the task would never fire' };
}

/**
 * The planner state a save of an existing task stores: the stored one, rewound for the prepared
 * fires the save withdrew (`withdrawnAt`, domain rewindForWithdrawn); when the schedule changed,
 * recomputed from now (a new trigger counts its fires from zero, as Quartz's reschedule), but a
 * FIXED_DELAY chain under way left to its run (`chainUnderWay`: the task is FIXED_DELAY before and
 * after, and a scheduled run of it has not ended once the save's withdrawal is done; nextFireAtFor).
 * A schedule that could never fire is the FieldError naming why.
 */
export function savedFireCursor(
  stored: FireCursor & { createdAt: number },
  before: TaskDefinition,
  after: TaskDefinition,
  calendar: ExclusionCalendar | null,
  now: number,
  withdrawnAt: readonly number[],
  chainUnderWay: boolean,
): FireCursor | FieldError {
  const rewound = rewindForWithdrawn({ fireCount: stored.fireCount, nextFireAt: stored.nextFireAt }, withdrawnAt);
  if (!scheduleChanged(before, after)) return rewound;
  const fireCount = JSON.stringify(before.trigger) !== JSON.stringify(after.trigger) ? 0 : rewound.fireCount;
  const schedule = scheduleOf(after, { fireCount, createdAt: stored.createdAt }, calendar);
  const nextFireAt = nextFireAtFor(schedule, now, { nextFireAt: rewound.nextFireAt, kindBefore: before.trigger.kind, chainUnderWay });
  // A chain under way has no next fire until its run ends: no sign that the task never fires.
  return (chainUnderWay ? null : neverFiresProblem(schedule, nextFireAt, now)) ?? { fireCount, nextFireAt };
}
