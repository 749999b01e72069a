import { DateTime, IANAZone } from 'luxon';
import type { Millis } from '../types';
import { UnknownTimeZoneError } from './unknown-time-zone-error';

/**
 * True for a time zone name the runtime's IANA database knows (`Europe/Berlin`, `UTC`).
 * Offsets such as `+01:00` are refused: they have no DST rules, and a task that should keep
 * local time would drift by an hour twice a year.
 */
export function isValidTimeZone(zone: unknown): zone is string {
  return typeof zone === 'string' && zone.length > 0 && zone.trim() === zone && IANAZone.isValidZone(zone);
}

/**
 * The runtime's canonical spelling of a valid zone (`europe/berlin` → `Europe/Berlin`), so
 * that what is stored compares equal to what the console shows. Null for an unknown zone.
 */
export function canonicalTimeZone(zone: string): string | null {
  if (!isValidTimeZone(zone)) return null;
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

function inZone(instant: Millis, zone: string): DateTime {
  const local = DateTime.fromMillis(instant, { zone });
  if (!local.isValid) throw new UnknownTimeZoneError(zone);
  return local;
}

/** The local calendar date (`YYYY-MM-DD`) of an instant in a zone. */
export function localDate(instant: Millis, zone: string): string {
  return inZone(instant, zone).toISODate() as string;
}

/**
 * The first instant of the local day after the one containing `instant`. Luxon resolves a
 * midnight that DST skips to the first existing instant of that day.
 */
export function startOfNextLocalDay(instant: Millis, zone: string): Millis {
  return inZone(instant, zone).startOf('day').plus({ days: 1 }).toMillis();
}
