/** Dates, durations and labels as people read them. */

import { t } from './i18n/i18n';

/**
 * How this viewer reads dates and numbers: the console's language and the display time zone of
 * their preferences (default: the browser's). Set by the preferences (preferences.tsx), read by
 * every formatter here, so no caller passes them along.
 */
const display = { locale: 'en', timeZone: browserTimeZone() };

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function setDisplay(locale: string, timeZone: string): void {
  display.locale = locale;
  display.timeZone = timeZone;
}

export function displayTimeZone(): string {
  return display.timeZone;
}

/**
 * An instant as `2026-11-25 05:31:29 CET` (English) or `2026/11/25 05:31:29 GMT+1` (Chinese):
 * year first, 24 h, and always the zone it is shown in (the viewer's display zone, or
 * `timeZone`) — one unambiguous form in every table (en-GB reads 25/11, en-US pickers 11/25).
 * `withMs` adds the milliseconds (log lines, timelines).
 */
export function fmtTime(ms: number | null | undefined, timeZone?: string, withMs = false): string {
  if (ms === null || ms === undefined) return '—';
  const zone = timeZone ?? display.timeZone;
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat(display.locale === 'en' ? 'en-GB' : display.locale, {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
        timeZone: zone,
        timeZoneName: 'short',
      })
        .formatToParts(new Date(ms))
        .map((p) => [p.type, p.value]),
    );
    const sep = display.locale === 'en' ? '-' : '/';
    const fraction = withMs ? `.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}` : '';
    return `${parts.year}${sep}${parts.month}${sep}${parts.day} ${parts.hour}:${parts.minute}:${parts.second}${fraction} ${parts.timeZoneName}`;
  } catch {
    return new Date(ms).toISOString();
  }
}

/** The instant in UTC to the millisecond (`2026-11-25 04:31:29.123 UTC`): the hover text of every shown time. */
export function fmtUtc(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

/** The time of day in the display zone, to the millisecond (pop-ups, log lines). */
export function fmtClock(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const text = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: display.timeZone }).format(new Date(ms));
  return `${text}.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}`;
}

export function fmtNumber(n: number | null | undefined, maximumFractionDigits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return new Intl.NumberFormat(display.locale, { maximumFractionDigits }).format(n);
}

/** A number with one decimal, as the locale writes it (`1.84`, `1,234.5`). */
const dec = (n: number, digits: number) => new Intl.NumberFormat(display.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(n);

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return sign + t('{{n}} ms', { n: dec(Math.round(a), 0) });
  // Round once, to the smallest unit shown, then split: never "17 min 60 s".
  if (a < 59_950) return sign + t('{{n}} s', { n: dec(a / 1000, a < 9_995 ? 2 : 1) });
  const seconds = Math.round(a / 1000);
  if (seconds < 3600) return sign + t('{{min}} min {{s}} s', { min: Math.floor(seconds / 60), s: seconds % 60 });
  const minutes = Math.round(a / 60_000);
  if (minutes < 24 * 60) return sign + t('{{h}} h {{min}} min', { h: Math.floor(minutes / 60), min: minutes % 60 });
  const hours = Math.round(a / 3600_000);
  return sign + t('{{d}} d {{h}} h', { d: Math.floor(hours / 24), h: hours % 24 });
}

export function fmtAgo(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return '—';
  const d = now - ms;
  if (d < 0) return t('in {{duration}}', { duration: fmtDuration(-d) });
  if (d < 1500) return t('just now');
  return t('{{duration}} ago', { duration: fmtDuration(d) });
}

/**
 * How long ago something that has happened happened (a run's end, a heartbeat): never "in …",
 * which a time from the server reads as when the browser's clock is behind it or the page's `now`
 * is a few seconds old.
 */
export function fmtSince(ms: number | null | undefined, now = Date.now()): string {
  return ms === null || ms === undefined ? '—' : fmtAgo(Math.min(ms, now), now);
}

/**
 * In how long something to come comes (a task's next fire): never "… ago". Once the page's `now`
 * passes it, it has come since the page read it (a task firing every second does between two
 * reads of the list), and reads "now" until the page reads the next one.
 */
export function fmtUntil(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return '—';
  return ms > now ? t('in {{duration}}', { duration: fmtDuration(ms - now) }) : t('now');
}

export function fmtPercent(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${dec(x * 100, 1)} %`;
}

export function triggerSummary(tr: { kind: string; intervalMs?: number; delayMs?: number; expression?: string; timeZone?: string; at?: number; event?: string }): string {
  switch (tr.kind) {
    case 'CRON':
      return t('cron {{expression}} ({{timeZone}})', { expression: tr.expression, timeZone: tr.timeZone });
    case 'FIXED_RATE':
      return t('every {{duration}}', { duration: fmtDuration(tr.intervalMs) });
    case 'FIXED_DELAY':
      return t('{{duration}} after each run', { duration: fmtDuration(tr.delayMs) });
    case 'ONCE':
      return t('once at {{time}}', { time: fmtTime(tr.at) });
    case 'EVENT':
      return t('on each event {{event}}', { event: tr.event });
    default:
      return t('manual');
  }
}

/** The wall-clock fields of an instant in a zone, as UTC milliseconds (Date.UTC of them). */
function wallClock(ms: number, timeZone: string): number {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone })
      .formatToParts(new Date(ms))
      .map((x) => [x.type, Number(x.value)]),
  );
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (((ms % 1000) + 1000) % 1000);
}

/** `2024-05-01T10:00` in the display time zone, for <input type="datetime-local">. */
export function toLocalInput(ms: number | null | undefined, timeZone = display.timeZone): string {
  if (ms === null || ms === undefined) return '';
  return new Date(wallClock(ms, timeZone)).toISOString().slice(0, 16);
}

/** The instant of a datetime-local value read in the display time zone (the offset taken at that instant, so across DST too). */
export function fromLocalInput(value: string, timeZone = display.timeZone): number | null {
  if (!value) return null;
  const asUtc = new Date(`${value}Z`).getTime();
  if (!Number.isFinite(asUtc)) return null;
  let guess = asUtc;
  for (let i = 0; i < 2; i++) guess = asUtc - (wallClock(guess, timeZone) - guess);
  return guess;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3600_000, d: 86_400_000 };

/**
 * A duration as typed into a form, in ms: a plain number is milliseconds (what the API takes),
 * `30s`, `5m` / `5 min`, `1.5h`, `2d` their unit. Null when it does not read as one. A negative one
 * reads too (`-1`, `-5s`): the API then says what the field's least is ("must be at least 1000"),
 * where the text sent as typed got "must be an integer".
 */
export function parseDuration(text: string): number | null {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  const value = Number(m[1]) * UNIT_MS[(m[2] ?? 'ms').toLowerCase()];
  return Number.isFinite(value) ? Math.round(value) : null;
}
