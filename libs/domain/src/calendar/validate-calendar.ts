import { DateTime } from 'luxon';
import type { FieldError } from '../validation/field-error';
import { isPlainObject } from '../validation/field-error';
import { isValidTimeZone } from '../time/time-zone';
import { nameProblem } from '../validation/names';

/** Upper bound on dates per calendar: 50 years of every day is far beyond any real use. */
export const MAX_CALENDAR_DATES = 20_000;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD` (2026-02-30 is refused). */
export function isLocalDate(value: unknown): value is string {
  return typeof value === 'string' && DATE_PATTERN.test(value) && DateTime.fromISO(value, { zone: 'UTC' }).isValid;
}

/** Validates an exclusion calendar input; an empty list means valid. */
export function validateCalendar(input: unknown): FieldError[] {
  if (!isPlainObject(input)) return [{ field: '', reason: 'must be an object' }];
  const errors: FieldError[] = [];

  const { name, timeZone, dates } = input;
  const nameReason = nameProblem(name);
  if (nameReason) errors.push({ field: 'name', reason: nameReason });
  if (!isValidTimeZone(timeZone)) {
    errors.push({ field: 'timeZone', reason: 'must be a known IANA time zone such as Europe/Berlin' });
  }
  if (!Array.isArray(dates)) {
    errors.push({ field: 'dates', reason: 'must be an array of YYYY-MM-DD dates' });
  } else if (dates.length > MAX_CALENDAR_DATES) {
    errors.push({ field: 'dates', reason: `must hold at most ${MAX_CALENDAR_DATES} dates` });
  } else {
    dates.forEach((date, i) => {
      if (!isLocalDate(date)) errors.push({ field: `dates[${i}]`, reason: 'must be a real date written YYYY-MM-DD' });
    });
  }
  return errors;
}
