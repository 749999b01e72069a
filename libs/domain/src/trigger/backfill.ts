import type { FieldError } from '../validation/field-error';
import { isMillis, INSTANT_REASON } from '../validation/field-error';
import type { Millis, Schedule } from '../types';
import { nextFireTimes } from './next-fire';

/** Most past fires one backfill request may make. */
export const MAX_BACKFILL_FIRES = 10_000;

/**
 * The fire times of a task's trigger in [from, to): what a backfill runs (issue 14 item 4, as
 * Temporal Schedules and Airflow do). Its calendar and start/end bounds apply as to any fire;
 * maxFires does not (a backfill redoes past fires, it does not add new ones). Only CRON and
 * FIXED_RATE triggers have past fires; `to` may not be after `now`. Errors name the field.
 */
export function backfillFires(schedule: Schedule, range: { from: unknown; to: unknown }, now: Millis): { fires: Millis[] } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (schedule.trigger.kind !== 'CRON' && schedule.trigger.kind !== 'FIXED_RATE') {
    errors.push({ field: 'trigger', reason: `a ${schedule.trigger.kind} task has no past fires to backfill (CRON and FIXED_RATE only)` });
  }
  const { from, to } = range;
  if (!isMillis(from)) errors.push({ field: 'from', reason: INSTANT_REASON });
  if (!isMillis(to)) errors.push({ field: 'to', reason: INSTANT_REASON });
  else if (to > now) errors.push({ field: 'to', reason: 'must not be in the future: a backfill runs past fires (the planner runs the rest)' });
  if (isMillis(from) && isMillis(to) && from >= to) errors.push({ field: 'from', reason: 'must be before to' });
  if (errors.length) return { errors };
  const fires = nextFireTimes({ ...schedule, maxFires: null, fireCount: 0 }, (from as Millis) - 1, MAX_BACKFILL_FIRES + 1).filter((t) => t < (to as Millis));
  if (fires.length > MAX_BACKFILL_FIRES) return { errors: [{ field: 'to', reason: `the range holds more than ${MAX_BACKFILL_FIRES} fires: narrow it` }] };
  return { fires };
}
