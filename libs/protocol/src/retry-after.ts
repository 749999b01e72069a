/**
 * A `Retry-After` header in ms from `now`: delay-seconds or an HTTP date (one already past is 0);
 * undefined when absent or unreadable. Unbounded above: each caller caps it at what it can afford
 * to wait, so that a wrong header does not park its request for hours.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  // A date names its month and day: without a letter, Date.parse would read "-1" or "1.5" as one.
  const ms = /^\s*\d+\s*$/.test(text) ? Number(text) * 1000 : /[a-z]/i.test(text) ? Date.parse(text) - now : NaN;
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}
