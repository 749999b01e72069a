import { DateTime } from 'luxon';
import type { ExclusionCalendar, Millis, RepeatedTimePolicy, Schedule, SkippedTimePolicy, Trigger } from '../types';

/** Test helpers only (not exported from the library): readable instants and schedules. */

/** Epoch ms of an ISO instant; the string must carry its offset (Z or ±hh:mm). */
export const at = (iso: string): Millis => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || !/(Z|[+-]\d\d:\d\d)$/.test(iso)) throw new Error(`bad test instant ${iso}`);
  return ms;
};

export const iso = (ms: Millis | null | undefined): string | null =>
  ms === null || ms === undefined ? null : DateTime.fromMillis(ms, { zone: 'UTC' }).toISO({ suppressMilliseconds: true });

/** Local wall-clock reading of an instant, e.g. "2026-03-29 03:00" — to assert what people see. */
export const local = (ms: Millis, zone: string): string => DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm:ss');

export function schedule(trigger: Trigger, rest: Partial<Schedule> = {}): Schedule {
  return { trigger, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null, ...rest };
}

export const cron = (expression: string, timeZone = 'UTC', dst: { repeatedTime?: RepeatedTimePolicy; skippedTime?: SkippedTimePolicy } = {}): Trigger => ({ kind: 'CRON', expression, timeZone, ...dst });

export function calendar(timeZone: string, dates: string[], name = 'holidays'): ExclusionCalendar {
  return { name, timeZone, dates };
}

/** `count` consecutive local dates starting at `first` (YYYY-MM-DD). */
export function consecutiveDates(first: string, count: number): string[] {
  const start = DateTime.fromISO(first, { zone: 'UTC' });
  return Array.from({ length: count }, (_, i) => start.plus({ days: i }).toISODate() as string);
}
