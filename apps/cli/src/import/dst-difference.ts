import { DateTime, IANAZone } from 'luxon';

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
