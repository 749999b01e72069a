import { nextFireTimes, type ExclusionCalendar } from '@baton/domain';
import { scheduleOf } from '../tasks/schedule';
import { definitionOf } from '../tasks/file-task';
import type { ConfigFile } from './config-file';
import { planChanges, type PlannedChange } from './config-plan';

/** How many next fire times a plan shows per task whose schedule changes. */
export const FIRE_TIMES_SHOWN = 3;

/** Everything a plan is computed from: plain data, so that it can be sent to ConfigThread's worker. */
export interface PlanInput {
  /** The tenant as stored (Snapshot.file). */
  current: ConfigFile;
  desired: ConfigFile;
  prune: boolean;
  now: number;
  /** Each stored task's fires so far and creation time, by name: where its schedule stands. */
  rows: Record<string, { fireCount: number; createdAt: number }>;
}

/**
 * The plan of `input`, with the next FIRE_TIMES_SHOWN fire times before and after of each task
 * whose schedule changes (`previews` false: none, the changes alone). The previews are most of a
 * plan's work (a cron's next fires: about 1 ms a task, a second for a file of 1,000 tasks), which
 * is why a plan runs in ConfigThread's worker, not on the event loop.
 */
export function planOf(input: PlanInput, previews = true): PlannedChange[] {
  const { current, desired, prune, now, rows } = input;
  if (!previews) return planChanges(current, desired, prune, null);
  const calendarsAfter = new Map<string, ExclusionCalendar>([...current.calendars, ...desired.calendars].map((c) => [c.name, c]));
  const calendarsBefore = new Map<string, ExclusionCalendar>(current.calendars.map((c) => [c.name, c]));
  return planChanges(current, desired, prune, (task, side) => {
    const row = rows[task.name];
    const calendars = side === 'before' ? calendarsBefore : calendarsAfter;
    const calendar = task.calendarName === null ? null : (calendars.get(task.calendarName) ?? null);
    const schedule = scheduleOf(definitionOf(task, ''), { fireCount: side === 'before' ? (row?.fireCount ?? 0) : 0, createdAt: row?.createdAt ?? now }, calendar);
    return nextFireTimes(schedule, now, FIRE_TIMES_SHOWN);
  });
}
