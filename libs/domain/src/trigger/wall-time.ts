import { IANAZone } from 'luxon';
import type { Millis } from '../types';

/**
 * A local wall-clock time, written as the epoch ms it would be in UTC (2026-03-08 02:30 local is
 * `Date.UTC(2026, 2, 8, 2, 30)`), and the instants it is in a zone. Cron matches wall times; a
 * daylight-saving change makes a range of them occur twice or never.
 */
export type WallTime =
  /** The usual case: one instant. */
  | { kind: 'SINGLE'; at: Millis }
  /**
   * Clocks went back: the time occurs before the change (`earlier`) and after it (`later`).
   * The repeated wall times are [rangeStart, rangeEnd).
   */
  | { kind: 'REPEATED'; earlier: Millis; later: Millis; rangeStart: Millis; rangeEnd: Millis }
  /**
   * Clocks went forward: the time does not occur. `gapEnd` is the instant of the change (the
   * first after the gap); the skipped wall times are [rangeStart, rangeEnd).
   */
  | { kind: 'SKIPPED'; gapEnd: Millis; rangeStart: Millis; rangeEnd: Millis };

const DAY = 86_400_000;
const MINUTE = 60_000;

/** One UTC year of a zone's offsets: the offset at its start and each change in it. */
interface ZoneYear {
  start: number;
  changes: { at: Millis; offset: number }[];
}

const years = new Map<string, ZoneYear>();
const MAX_YEARS = 1_000;
/** A zone changes its offset at most a few times a year, never twice in six hours. */
const SAMPLE = 6 * 3_600_000;

/**
 * The zone's offset at an instant, in ms (local = instant + offset). Trigger math asks it many
 * times per fire; the runtime's answer (luxon, Intl) is slow, so each zone's changes are found
 * once per year (sampled, then bisected to the millisecond) and looked up after that.
 */
export function offsetAt(zone: IANAZone, instant: Millis): number {
  const year = new Date(instant).getUTCFullYear();
  const key = `${zone.name}\u0000${year}`;
  let known = years.get(key);
  if (known === undefined) {
    known = zoneYear(zone, year);
    if (years.size >= MAX_YEARS) years.clear();
    years.set(key, known);
  }
  let offset = known.start;
  for (const change of known.changes) {
    if (change.at > instant) break;
    offset = change.offset;
  }
  return offset;
}

function zoneYear(zone: IANAZone, year: number): ZoneYear {
  const runtime = (t: Millis) => zone.offset(t) * MINUTE;
  const from = Date.UTC(year, 0, 1);
  const to = Date.UTC(year + 1, 0, 1);
  const start = runtime(from);
  const changes: ZoneYear['changes'] = [];
  let previous = start;
  for (let t = from + SAMPLE; t < to + SAMPLE; t += SAMPLE) {
    const end = Math.min(t, to - 1);
    const offset = runtime(end);
    if (offset === previous) continue;
    let lo = end - SAMPLE;
    let hi = end;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (runtime(mid) === offset) hi = mid;
      else lo = mid;
    }
    changes.push({ at: hi, offset });
    previous = offset;
  }
  return { start, changes };
}

/** The wall time of an instant in the zone. */
export function wallTimeOf(zone: IANAZone, instant: Millis): Millis {
  return instant + offsetAt(zone, instant);
}

/**
 * Where a wall time falls in the zone. The offsets a day before and after bound it (an instant
 * is within 14 hours of its wall time, and no zone changes its offset twice in two days).
 */
export function locateWallTime(zone: IANAZone, wall: Millis): WallTime {
  const before = offsetAt(zone, wall - DAY);
  const after = offsetAt(zone, wall + DAY);
  const fits = (offset: number) => offsetAt(zone, wall - offset) === offset;
  const fitsBefore = fits(before);
  const fitsAfter = fits(after);
  if (fitsBefore && fitsAfter && before > after) {
    // The clocks went back by before − after at the change.
    const change = changeBetween(zone, wall - before, wall - after);
    return { kind: 'REPEATED', earlier: wall - before, later: wall - after, rangeStart: change + after, rangeEnd: change + before };
  }
  if (!fitsBefore && !fitsAfter && before < after) {
    // The clocks went forward over this wall time.
    const change = changeBetween(zone, wall - after, wall - before);
    return { kind: 'SKIPPED', gapEnd: change, rangeStart: change + before, rangeEnd: change + after };
  }
  return { kind: 'SINGLE', at: fitsAfter && !fitsBefore ? wall - after : wall - before };
}

/** The first instant in (lo, hi] whose offset is hi's, given lo's differs: the change. */
function changeBetween(zone: IANAZone, lo: Millis, hi: Millis): Millis {
  const target = offsetAt(zone, hi);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid) === target) hi = mid;
    else lo = mid;
  }
  return hi;
}
