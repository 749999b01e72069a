import { DateTime, IANAZone } from 'luxon';
import { nextFireTimes, type Schedule } from '@baton/domain';

const DAY_MS = 86_400_000;
/** How far ahead transitions are looked for: two years shows both of a zone's yearly changes twice. */
const HORIZON_DAYS = 731;

interface Transition {
  at: number;
  /** Offset after minus offset before, in ms: negative for a repeated hour (fall back), positive for a gap (spring forward). */
  deltaMs: number;
}

const transitionsByZone = new Map<string, { from: number; list: Transition[] }>();

/**
 * Where a cron task's fire times differ from Quartz's CronExpression's around daylight-saving
 * changes (real Quartz 2.3.2, measured by test/cli/import-quartz.e2e-spec.ts; XXL-JOB's admin
 * schedules with its own copy of that class; `scheduler` names the one in the note):
 * - a time of day that does not exist (spring forward): Quartz skips it; Baton fires a fixed
 *   time (one second, minute and hour) at the end of the gap;
 * - a repeated time of day (fall back): Quartz fires it once, at its second occurrence; Baton
 *   fires a fixed time once, at its first, and any other expression at both.
 * Answers the first change (in the two years from `from`) at which the task's fires would
 * differ, as a note, or null.
 */
export function dstDifference(schedule: Schedule, expression: string, timeZone: string, from: number, scheduler: string): string | null {
  const fixed = expression.split(' ').slice(0, 3).every((f) => /^\d+$/.test(f));
  for (const t of transitions(timeZone, Math.max(from, schedule.startAt ?? from))) {
    const span = Math.abs(t.deltaMs);
    // At most two fires fit in the window of a change: a fixed time fires once a day, and one in the window tells.
    const near = nextFireTimes(schedule, t.at - span - 1, 2).filter((f) => f < t.at + span);
    const differs = t.deltaMs < 0 ? near.length > 0 : fixed && near.includes(t.at) && inGap(expression, t, timeZone);
    if (differs) {
      const day = DateTime.fromMillis(t.at, { zone: timeZone }).toISODate();
      return t.deltaMs < 0
        ? `daylight saving (${timeZone}, ${day} and each such day): ${scheduler} fires a repeated time of day once, at its second occurrence; Baton fires ${fixed ? 'it once, at its first' : 'it at both'}`
        : `daylight saving (${timeZone}, ${day} and each such day): ${scheduler} skips a time of day that does not exist; Baton fires it at the end of the gap`;
    }
  }
  return null;
}

/** True when the fixed time of day (`second minute hour …`) is one the gap skips. */
function inGap(expression: string, t: Transition, timeZone: string): boolean {
  const [second, minute, hour] = expression.split(' ').map(Number);
  return affects(t, hour * 3600 + minute * 60 + second, timeZone);
}

/**
 * True when a change makes the time of day (seconds after midnight) skipped (a gap: the wall
 * times from the one before the change, for the gap's length) or repeated (the wall times from
 * the one after the change, for the overlap's length).
 */
function affects(t: Transition, secondOfDay: number, timeZone: string): boolean {
  const wall = DateTime.fromMillis(t.deltaMs > 0 ? t.at - 1_000 : t.at, { zone: timeZone });
  const start = wall.hour * 3600 + wall.minute * 60 + wall.second + (t.deltaMs > 0 ? 1 : 0);
  return secondOfDay >= start && secondOfDay < start + Math.abs(t.deltaMs) / 1000;
}

/** The local date of the first daylight-saving change (in two years from `from`) that skips or repeats the time of day, or null. */
export function changeAtTimeOfDay(secondOfDay: number, timeZone: string, from: number): string | null {
  const hit = transitions(timeZone, from).find((t) => affects(t, secondOfDay, timeZone));
  return hit ? (DateTime.fromMillis(hit.at, { zone: timeZone }).toISODate() as string) : null;
}

function transitions(timeZone: string, from: number): Transition[] {
  const cached = transitionsByZone.get(timeZone);
  if (cached && cached.from <= from && from - cached.from < DAY_MS * 30) return cached.list;
  const zone = IANAZone.create(timeZone);
  const list: Transition[] = [];
  for (let day = 0; day < HORIZON_DAYS; day++) {
    let lo = from + day * DAY_MS;
    let hi = lo + DAY_MS;
    const before = zone.offset(lo);
    const after = zone.offset(hi);
    if (before === after) continue;
    while (hi - lo > 1_000) {
      const mid = Math.floor((lo + hi) / 2);
      if (zone.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    list.push({ at: Math.floor(hi / 1000) * 1000, deltaMs: (after - before) * 60_000 });
  }
  transitionsByZone.set(timeZone, { from, list });
  return list;
}
