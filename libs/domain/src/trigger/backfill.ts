import type { FieldError } from '../validation/field-error';
import { isMillis, INSTANT_REASON } from '../validation/field-error';
import type { Millis, Schedule } from '../types';
import { nextFireTimes } from './next-fire';

/** Most past fires one backfill request may make. */
export const MAX_BACKFILL_FIRES = 10_000;

/** Runs a backfill writes a transaction: small enough that preparing and reading back one holds a server's event loop a few milliseconds only. */
export const BACKFILL_SLICE = 100;

/** Fire times per slice of backfillFires: about 50 µs of CPU each (croner), so 2–4 ms a slice. */
export const FIRES_PER_SLICE = 50;

/** What a range holding more than MAX_BACKFILL_FIRES fires is refused with. */
export const BACKFILL_TOO_MANY: FieldError = { field: 'to', reason: `the range holds more than ${MAX_BACKFILL_FIRES} fires: narrow it` };

/**
 * Checks what a backfill asks for (issue 14 item 4, as Temporal Schedules and Airflow do): the
 * past fires of a task's trigger in [from, to). Only CRON and FIXED_RATE triggers have past
 * fires; `to` may not be after `now`. Errors name the field.
 */
export function backfillRange(schedule: Schedule, range: { from: unknown; to: unknown }, now: Millis): { from: Millis; to: Millis } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (schedule.trigger.kind !== 'CRON' && schedule.trigger.kind !== 'FIXED_RATE') {
    errors.push({ field: 'trigger', reason: `a ${schedule.trigger.kind} task has no past fires to backfill (CRON and FIXED_RATE only)` });
  }
  const { from, to } = range;
  if (!isMillis(from)) errors.push({ field: 'from', reason: INSTANT_REASON });
  if (!isMillis(to)) errors.push({ field: 'to', reason: INSTANT_REASON });
  else if (to > now) errors.push({ field: 'to', reason: 'must not be in the future: a backfill runs past fires (the planner runs the rest)' });
  if (isMillis(from) && isMillis(to) && from >= to) errors.push({ field: 'from', reason: 'must be before to' });
  return errors.length ? { errors } : { from: from as Millis, to: to as Millis };
}

/**
 * The fire times of a checked range, in order, in slices of at most `sliceSize`: its calendar
 * and start/end bounds apply as to any fire; maxFires does not (a backfill redoes past fires,
 * it does not add new ones). It stops after MAX_BACKFILL_FIRES + 1 fires, so a caller holding
 * more than MAX_BACKFILL_FIRES refuses the range (BACKFILL_TOO_MANY) without computing the rest.
 * Sliced because a cron fire costs about 50 µs (croner): the 10,000 of a full backfill are half
 * a second of CPU or more, which a server spreads over turns of its event loop, a slice a turn,
 * so no turn is held longer than a few milliseconds.
 */
export function* backfillFires(schedule: Schedule, range: { from: Millis; to: Millis }, sliceSize = FIRES_PER_SLICE): Generator<Millis[], void, void> {
  const unbounded = { ...schedule, maxFires: null, fireCount: 0 };
  let after = range.from - 1;
  for (let left = MAX_BACKFILL_FIRES + 1; left > 0; ) {
    const slice = nextFireTimes(unbounded, after, Math.min(sliceSize, left)).filter((t) => t < range.to);
    if (slice.length === 0) return;
    yield slice;
    left -= slice.length;
    after = slice[slice.length - 1];
  }
}
