/** Dates, durations and labels as people read them. */

/**
 * An instant as `2026-11-25 05:31:29 CET`: year first, 24 h, and always the zone it is shown in
 * (the viewer's, or `timeZone`) — one unambiguous form in every table, whatever the browser's
 * locale (en-GB read 25/11 and en-US pickers 11/25).
 */
export function fmtTime(ms: number | null | undefined, timeZone?: string): string {
  if (ms === null || ms === undefined) return '—';
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hour12: false,
        timeZone,
        timeZoneName: 'short',
      })
        .formatToParts(new Date(ms))
        .map((p) => [p.type, p.value]),
    );
    return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
  } catch {
    return new Date(ms).toISOString();
  }
}

export function fmtClock(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  return `${d.toLocaleTimeString('en-GB', { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  // Round once, to the smallest unit shown, then split: never "17 min 60 s".
  if (a < 59_950) return `${sign}${(a / 1000).toFixed(a < 9_995 ? 2 : 1)} s`;
  const seconds = Math.round(a / 1000);
  if (seconds < 3600) return `${sign}${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(a / 60_000);
  return `${sign}${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function fmtAgo(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return '—';
  const d = now - ms;
  if (d < 0) return `in ${fmtDuration(-d)}`;
  if (d < 1500) return 'just now';
  return `${fmtDuration(d)} ago`;
}

export function fmtPercent(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`;
}

export function triggerSummary(t: { kind: string; intervalMs?: number; delayMs?: number; expression?: string; timeZone?: string; at?: number }): string {
  switch (t.kind) {
    case 'CRON':
      return `cron ${t.expression} (${t.timeZone})`;
    case 'FIXED_RATE':
      return `every ${fmtDuration(t.intervalMs)}`;
    case 'FIXED_DELAY':
      return `${fmtDuration(t.delayMs)} after each run`;
    case 'ONCE':
      return `once at ${fmtTime(t.at)}`;
    default:
      return 'manual';
  }
}

/** `2024-05-01T10:00` in local time, for <input type="datetime-local">. */
export function toLocalInput(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

export function fromLocalInput(value: string): number | null {
  if (!value) return null;
  const t = new Date(value).getTime();
  return Number.isFinite(t) ? t : null;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3600_000, d: 86_400_000 };

/**
 * A duration as typed into a form, in ms: a plain number is milliseconds (what the API takes),
 * `30s`, `5m` / `5 min`, `1.5h`, `2d` their unit. Null when it does not read as one.
 */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  const value = Number(m[1]) * UNIT_MS[(m[2] ?? 'ms').toLowerCase()];
  return Number.isFinite(value) ? Math.round(value) : null;
}
