import { DateTime } from 'luxon';
import { parseCron, type CronDst } from '@baton/domain';

/**
 * What Quartz's CronExpression does on daylight-saving days (XXL-JOB's admin schedules with its
 * own copy of that class): a local time the clocks repeat fires once, after they went back; one
 * they skip does not fire (measured against Quartz 2.3.2 by test/cli/import-quartz.e2e-spec.ts).
 * Baton's defaults are the same, so a file leaves them out (canonicalCronTrigger: a file holds
 * somewhat under 2,000 tasks, and two lines each would cost a tenth of that); were they to
 * differ, the file would carry these.
 */
export const QUARTZ_CRON_DST: CronDst = { repeatedTime: 'ONCE_LATER', skippedTime: 'SKIP' };

/** A Quartz cron expression in Baton's dialect, with the years its 7th field allowed as bounds; or why it cannot be. */
export type TranslatedCron = { ok: true; expression: string; notBefore: number | null; notAfter: number | null; note?: string } | { ok: false; reason: string };

const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/**
 * Quartz's cron (second minute hour day-of-month month day-of-week [year]) as Baton reads it
 * (croner, 6 fields):
 * - day-of-week numbers differ: Quartz counts 1 = Sunday … 7 = Saturday, Baton 0 = Sunday …
 *   6 = Saturday. Every number is shifted, in `n#k` and `nL` too; ranges and steps are
 *   written out as lists first (a Quartz step runs to 7, never wrapping to a second Sunday);
 *   `L` alone means Saturday (7).
 * - `a/n` (from a, every n) is written `a-max/n`, the form Baton reads.
 * - `?` reads as `*`: Quartz allows only one of the two day fields to be given (quartzRefuses),
 *   so Baton's either-field rule for two given fields never applies.
 * - the year field becomes bounds in the trigger's time zone (one year or a range); a list or
 *   step of years has no Baton form.
 * - `L-n` (n days before the last day of the month) has no Baton form.
 * - a day-of-month list with a `W` in it (`1W,15W`): Quartz fires only on the weekday nearest
 *   the list's smallest day (its nearest-weekday rule takes the first of the days), Baton would
 *   fire on each: it becomes that one day's `nW`, with a note (weekdayList).
 */
export function translateQuartzCron(quartz: string, timeZone: string): TranslatedCron {
  const fields = quartz.trim().toUpperCase().split(/\s+/);
  if (fields.length !== 6 && fields.length !== 7) return { ok: false, reason: `"${quartz}" has ${fields.length} fields (Quartz has 6 or 7)` };
  const [second, minute, hour, dom, month, dow, year] = fields;
  const refused = quartzRefuses(dom, dow);
  if (refused !== null) return { ok: false, reason: `"${quartz}": Quartz's CronExpression refuses it ("${refused}"), so it never fired there` };
  if (/L-\d/.test(dom)) return { ok: false, reason: `day-of-month "${dom}" (n days before the month's last day) has no Baton cron form` };
  const weekday = translateDayOfWeek(dow);
  if (!weekday.ok) return weekday;
  const bounds = yearBounds(year, timeZone);
  if (!bounds.ok) return bounds;
  const days = weekdayList(dom);
  if (!days.ok) return days;
  const expression = [steps(second, 59), steps(minute, 59), steps(hour, 23), dom === '?' ? '*' : (days.field ?? steps(dom, 31)), steps(month, 12), weekday.field].join(' ');
  // A row written past the scheduler's own check (by hand, by a script) can hold any text: it is
  // listed with Baton's reason, not thrown at the whole import.
  const parsed = parseCron(expression, timeZone);
  if (!parsed.ok) return { ok: false, reason: `"${quartz}" is not a cron Baton can read: ${parsed.reason}` };
  return { ok: true, expression, notBefore: bounds.notBefore, notAfter: bounds.notAfter, ...(days.note ? { note: days.note } : {}) };
}

/**
 * A day-of-month list with a `W` (`1W,15W`, `15,1W`): Quartz 2.3.2 takes it and fires on the
 * weekday nearest the smallest day only (measured: `1W,15W` fires on 1W, never on 15W), so the
 * field that keeps its fires is that day's `nW`. Null field: not such a list. A list whose parts
 * are not plain days (a range, a step) is refused: what Quartz makes of it was not measured.
 */
function weekdayList(dom: string): { ok: true; field: string | null; note: string | null } | { ok: false; reason: string } {
  if (!dom.includes('W') || !dom.includes(',')) return { ok: true, field: null, note: null };
  const parts = dom.split(',');
  if (!parts.every((part) => /^\d{1,2}W?$/.test(part))) return { ok: false, reason: `day-of-month "${dom}": a W in a list of ranges or steps has no Baton cron form` };
  const field = `${Math.min(...parts.map((part) => parseInt(part, 10)))}W`;
  return { ok: true, field, note: `day-of-month "${dom}": Quartz fires only on the weekday nearest the list's first day, imported as "${field}" (a task for each other day keeps them)` };
}

/**
 * Quartz 2.3's own refusal of the day fields (CronExpression's messages, checked against
 * Quartz 2.3.2), or null. A row the scheduler wrote never holds one — it parses a cron before
 * storing it — but a row edited by hand may, and Baton would read it (both days given: either
 * one fires it), making fires Quartz never made.
 */
function quartzRefuses(dom: string, dow: string): string | null {
  const domGiven = !dom.includes('?');
  const dowGiven = !dow.includes('?');
  if (domGiven && dowGiven) return 'Support for specifying both a day-of-week AND a day-of-month parameter is not implemented.';
  if (!domGiven && !dowGiven) return "'?' can only be specified for Day-of-Month -OR- Day-of-Week.";
  if (dom.includes('L') && dom.includes(',')) return "Support for specifying 'L' and 'LW' with other days of the month is not implemented";
  if (dow.includes('L') && dow.includes(',')) return "Support for specifying 'L' with other days of the week is not implemented";
  return null;
}

/** Quartz's `a/n` (from a to the field's end, every n): Baton writes the range out, `a-max/n`. */
function steps(field: string, max: number): string {
  return field
    .split(',')
    .map((part) => part.replace(/^(\d+)\/(\d+)$/, `$1-${max}/$2`))
    .join(',');
}

function translateDayOfWeek(field: string): { ok: true; field: string } | { ok: false; reason: string } {
  if (field === '?' || field === '*') return { ok: true, field: '*' };
  if (field === 'L') return { ok: true, field: '6' };
  const nth = /^([A-Z]{3}|[1-7])#([1-5])$/.exec(field);
  if (nth) return { ok: true, field: `${dayNumber(nth[1])! - 1}#${nth[2]}` };
  const last = /^([A-Z]{3}|[1-7])L$/.exec(field);
  if (last) return { ok: true, field: `${dayNumber(last[1])! - 1}L` };
  const days = new Set<number>();
  for (const part of field.split(',')) {
    const step = /^(\*|[A-Z]{3}|[1-7])(?:-([A-Z]{3}|[1-7]))?(?:\/(\d+))?$/.exec(part);
    const from = step ? (step[1] === '*' ? 1 : dayNumber(step[1])) : null;
    const to = step?.[2] !== undefined ? dayNumber(step[2]) : step?.[3] !== undefined || step?.[1] === '*' ? 7 : from;
    const by = step?.[3] !== undefined ? Number(step[3]) : 1;
    if (from === null || to === null || !(by >= 1)) return { ok: false, reason: `day-of-week "${field}" is not one Baton can read (${part})` };
    // Quartz reads a range that wraps (FRI-MON) through Saturday.
    const span = (to - from + 7) % 7;
    for (let i = 0; i <= span; i += by) days.add(((from - 1 + i) % 7) + 1);
  }
  return { ok: true, field: [...days].sort((a, b) => a - b).map((d) => d - 1).join(',') };
}

/** 1 (Sunday) … 7 (Saturday), or null. */
function dayNumber(token: string): number | null {
  if (/^[1-7]$/.test(token)) return Number(token);
  const index = DAY_NAMES.indexOf(token);
  return index < 0 ? null : index + 1;
}

function yearBounds(field: string | undefined, timeZone: string): { ok: true; notBefore: number | null; notAfter: number | null } | { ok: false; reason: string } {
  if (field === undefined || field === '*' || field === '?') return { ok: true, notBefore: null, notAfter: null };
  const range = /^(\d{4})(?:-(\d{4}))?$/.exec(field);
  if (!range) return { ok: false, reason: `year field "${field}": Baton bounds a task by a start and an end, not by a list or step of years` };
  const first = Number(range[1]);
  const lastYear = Number(range[2] ?? range[1]);
  const start = DateTime.fromObject({ year: first, month: 1, day: 1 }, { zone: timeZone }).toMillis();
  const end = DateTime.fromObject({ year: lastYear + 1, month: 1, day: 1 }, { zone: timeZone }).toMillis() - 1;
  return { ok: true, notBefore: start, notAfter: end };
}
