import type { ExclusionCalendar, Millis } from '../types';
import { localDate } from '../time/time-zone';

/**
 * A reusable "is this instant on an excluded date?" test. Trigger math asks it once per
 * candidate fire time, so the date list becomes a set once per search, not once per check.
 * No calendar means nothing is excluded.
 */
export function exclusionTest(calendar: ExclusionCalendar | null): (instant: Millis) => boolean {
  if (calendar === null || calendar.dates.length === 0) return () => false;
  const dates = new Set(calendar.dates);
  const zone = calendar.timeZone;
  return (instant) => dates.has(localDate(instant, zone));
}

/**
 * True when the instant falls on one of the calendar's dates, read as a local date in the
 * calendar's own time zone (not UTC, not the trigger's zone): 23:30 UTC on 2026-12-24 is
 * 2026-12-25 in Berlin.
 */
export function isExcluded(calendar: ExclusionCalendar | null, instant: Millis): boolean {
  return exclusionTest(calendar)(instant);
}
