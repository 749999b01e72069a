import { Cron } from 'croner';
import type { Millis } from '../types';
import { canonicalTimeZone } from '../time/time-zone';

/**
 * Cron is delegated to croner (maintained, DST-aware), configured once here so every room of
 * Baton reads an expression the same way:
 * - 6 fields (second first) or 5 fields (second 0); a 7th (year) field is refused, because
 *   the task model has start/end times for that.
 * - `?` is an alias of `*`; day-of-month and day-of-week combine with OR as in Vixie cron
 *   (prefix day-of-week with `+` for AND); `L`, `W`, `#` and names (MON, JAN) work;
 *   nicknames `@daily`, `@hourly`, … work; `@reboot` does not.
 * - DST, as croner documents and the next-fire tests pin down:
 *   - a *fixed-time* job (one value in each of second, minute, hour, e.g. `0 30 2 * * *`)
 *     whose local time does not exist on a spring-forward day runs at the first instant
 *     after the gap (03:00 local), once; on a fall-back day it runs once, at the first
 *     occurrence of the repeated time;
 *   - any other job (wildcards, steps, lists, ranges in those fields, e.g. hourly) skips the
 *     times in the gap and runs at both occurrences of a repeated time.
 */
const CRON_MODE = '5-or-6-parts' as const;

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
    // whatever the mode, and a 7th (year) field is refused (see CRON_MODE).
    return { ok: false, error: 'INVALID_EXPRESSION', reason: `invalid cron expression: it has ${fields} field${fields === 1 ? '' : 's'}; give ${CRON_FIELDS_RULE}` };
  }
  let cron: Cron;
  try {
    cron = compileCron(trimmed, zone);
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

// Parsing is the expensive part of a croner job; planning calls next-fire many times per task,
// so compiled jobs are memoised. A job made without a callback never starts a timer.
const compiled = new Map<string, Cron>();
const MAX_COMPILED = 1_000;

/** A croner job for the expression in the zone; throws on an invalid expression. */
export function compileCron(expression: string, timeZone: string): Cron {
  const key = `${timeZone}\u0000${expression}`;
  let cron = compiled.get(key);
  if (cron === undefined) {
    cron = new Cron(expression, { timezone: timeZone, mode: CRON_MODE });
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, cron);
  }
  return cron;
}

/**
 * The first cron fire time strictly after `after`, or null if there is none.
 * Croner works in whole seconds and is strictly-after already; the loop is a guard so that a
 * sub-second `after` can never yield a time at or before it.
 */
export function nextCronTime(expression: string, timeZone: string, after: Millis): Millis | null {
  const cron = compileCron(expression, timeZone);
  let reference = after;
  for (;;) {
    const next = cron.nextRun(new Date(reference));
    if (next === null) return null;
    const t = next.getTime();
    if (t > after) return t;
    reference = t;
  }
}
