import { Cron } from 'croner';
import { IANAZone } from 'luxon';
import type { Millis } from '../types';
import { canonicalTimeZone } from '../time/time-zone';
import { DEFAULT_CRON_DST, type CronDst } from './cron-dst';
import { CRONER_OPTIONS } from './croner-options';
import { shortMonthWeekday } from './short-month-weekday';
import { locateWallTime, wallTimeOf } from './wall-time';

/**
 * Cron is delegated to croner (maintained), configured once here so every room of
 * Baton reads an expression the same way:
 * - 6 fields (second first) or 5 fields (second 0); a 7th (year) field is refused, because
 *   the task model has start/end times for that.
 * - `?` is an alias of `*`; day-of-month and day-of-week combine with OR as in Vixie cron
 *   (prefix day-of-week with `+` for AND); `L`, `W`, `#` and names (MON, JAN) work; `nW` past
 *   a month's end fires as Quartz's does (short-month-weekday.ts);
 *   nicknames `@daily`, `@hourly`, … work; `@reboot` does not.
 * - DST is Baton's, not croner's: croner matches *wall times* (it runs in UTC here, where a wall
 *   time is written as the epoch ms it would be in UTC), and each wall time becomes instants in
 *   the task's zone by the trigger's policies (cron-dst.ts): a time the clocks skip fires late
 *   or not at all, a time that occurs twice fires at one occurrence or both.
 */
/** How many fields a cron expression has: the one wording of the API's reason and the console's hint. */
export const CRON_FIELDS_RULE = '6 (second minute hour day-of-month month day-of-week) or 5 (no seconds); no year field';

/** Matches the varchar(200) column the expression is stored in. */
export const MAX_CRON_EXPRESSION_LENGTH = 200;

export type CronError = 'INVALID_EXPRESSION' | 'UNKNOWN_TIME_ZONE' | 'NEVER_FIRES';

export type ParsedCron =
  /** `expression` is trimmed; `timeZone` is the runtime's canonical spelling. */
  | { ok: true; expression: string; timeZone: string }
  /** `reason` is a sentence for people, naming what is wrong. */
  | { ok: false; error: CronError; reason: string };

/**
 * Validates a cron expression and its IANA time zone. Never throws.
 * NEVER_FIRES catches valid-looking expressions that match no date (`0 0 30 2 *`), which would
 * otherwise be a task that silently never runs.
 */
export function parseCron(expression: unknown, timeZone: unknown): ParsedCron {
  if (typeof expression !== 'string' || expression.trim().length === 0) {
    return { ok: false, error: 'INVALID_EXPRESSION', reason: 'cron expression is required' };
  }
  const trimmed = expression.trim();
  if (trimmed.length > MAX_CRON_EXPRESSION_LENGTH) {
    return { ok: false, error: 'INVALID_EXPRESSION', reason: `cron expression must be at most ${MAX_CRON_EXPRESSION_LENGTH} characters` };
  }
  const zone = typeof timeZone === 'string' ? canonicalTimeZone(timeZone) : null;
  if (zone === null) {
    return { ok: false, error: 'UNKNOWN_TIME_ZONE', reason: `unknown IANA time zone "${String(timeZone)}"` };
  }
  const fields = trimmed.startsWith('@') ? null : trimmed.split(/\s+/).length;
  if (fields !== null && fields !== 5 && fields !== 6) {
    // Said here, not by croner: its message for a wrong count names "five, six, or seven" parts
    // whatever the mode, and a 7th (year) field is refused (see CRONER_OPTIONS).
    return { ok: false, error: 'INVALID_EXPRESSION', reason: `invalid cron expression: it has ${fields} field${fields === 1 ? '' : 's'}; give ${CRON_FIELDS_RULE}` };
  }
  let cron: CronJob;
  try {
    cron = compileCron(trimmed);
  } catch (e) {
    return { ok: false, error: 'INVALID_EXPRESSION', reason: croneReason(e) };
  }
  // Without a year field an expression that matches at all matches again within a few decades
  // of any instant (29 February on a Monday is the rarest kind), and croner searches up to the
  // year 3000, so "no run after 1970" means "never".
  if (cron.nextRun(new Date(0)) === null) {
    return { ok: false, error: 'NEVER_FIRES', reason: 'cron expression matches no date (e.g. 30 February)' };
  }
  return { ok: true, expression: trimmed, timeZone: zone };
}

/** Croner's messages start with "CronPattern: "; the rest names the offending part. */
function croneReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return `invalid cron expression: ${message.replace(/^CronPattern:\s*/, '')}`;
}

/** A compiled cron: the first wall time it matches strictly after one, or null. */
export interface CronJob {
  nextRun(after: Date): Date | null;
}

// Parsing is the expensive part of a croner job; planning calls next-fire many times per task,
// so compiled jobs are memoised. A job made without a callback never starts a timer.
const compiled = new Map<string, CronJob>();
const MAX_COMPILED = 1_000;

/** A job matching wall times (see the top of this file); throws on an invalid expression. */
export function compileCron(expression: string): CronJob {
  let cron = compiled.get(expression);
  if (cron === undefined) {
    const main = new Cron(expression, CRONER_OPTIONS);
    const extra = shortMonthWeekday(expression);
    cron = extra === null ? main : { nextRun: (after) => earliest(main.nextRun(after), extra.nextRun(after)) };
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(expression, cron);
  }
  return cron;
}

function earliest(a: Date | null, b: Date | null): Date | null {
  return a === null ? b : b === null || a <= b ? a : b;
}

/**
 * The first cron fire time strictly after `after` in the zone under the daylight-saving
 * policies (default: Quartz's), or null if there is none. TWICE is the union of the two
 * occurrences' sequences, so its next fire is the earlier of theirs.
 */
export function nextCronTime(expression: string, timeZone: string, after: Millis, dst: CronDst = DEFAULT_CRON_DST): Millis | null {
  if (dst.repeatedTime !== 'TWICE') return nextOnce(expression, timeZone, after, dst.repeatedTime === 'ONCE_EARLIER' ? 'earlier' : 'later', dst.skippedTime === 'FIRE_LATE');
  const earlier = nextOnce(expression, timeZone, after, 'earlier', dst.skippedTime === 'FIRE_LATE');
  const later = nextOnce(expression, timeZone, after, 'later', dst.skippedTime === 'FIRE_LATE');
  return earlier === null ? later : later === null ? earlier : Math.min(earlier, later);
}

/**
 * With one occurrence of each repeated time, wall times map onto instants in order, so the
 * walk over matching wall times stops at the first whose instant is after `after`. It starts
 * at `after`'s own wall time — or, when `after` is in a repeated range, where that range's
 * wall times can still fire after it: its start for the later occurrence (from the earlier
 * pass, they all lie ahead), its end for the earlier (from the later pass, none does). A
 * skipped range is crossed in one step. Croner is whole-second and strictly-after; the final
 * check keeps a sub-second `after` from yielding a time at or before it.
 */
function nextOnce(expression: string, timeZone: string, after: Millis, occurrence: 'earlier' | 'later', fireLate: boolean): Millis | null {
  const cron = compileCron(expression);
  const zone = IANAZone.create(timeZone);
  let wall = wallTimeOf(zone, after);
  const here = locateWallTime(zone, wall);
  if (here.kind === 'REPEATED') {
    if (occurrence === 'later' && after < here.later) wall = here.rangeStart - 1;
    if (occurrence === 'earlier' && after >= here.later) wall = Math.max(wall, here.rangeEnd - 1);
  }
  for (;;) {
    const next = cron.nextRun(new Date(wall));
    if (next === null) return null;
    const matched = locateWallTime(zone, next.getTime());
    const at = matched.kind === 'SINGLE' ? matched.at : matched.kind === 'REPEATED' ? matched[occurrence] : fireLate ? matched.gapEnd : null;
    if (at !== null && at > after) return at;
    wall = matched.kind === 'SKIPPED' ? Math.max(matched.rangeEnd - 1, next.getTime()) : next.getTime();
  }
}
