/**
 * One reason an input is refused. `field` is a dotted path into the input
 * (`trigger.expression`, `retry.maxAttempts`, `dates[3]`) so the console can put the message
 * beside the right form control and the REST API can name it in its 400 body.
 */
export interface FieldError {
  field: string;
  reason: string;
}

/** Largest value of the 32-bit integer columns the durations and counters are stored in. */
export const MAX_INT32 = 2_147_483_647;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks that `value` is an integer in [min, max] and returns the reason when it is not.
 * One phrasing for every numeric field keeps the API's messages predictable.
 */
export function integerInRange(value: unknown, min: number, max: number): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
  if (value < min) return `must be at least ${min}`;
  if (value > max) return `must be at most ${max}`;
  return null;
}

/**
 * Latest instant Baton stores: 9999-12-31T23:59:59.999Z. JavaScript dates end at 8.64e15 ms
 * and Luxon's with them, so an instant near that end (still a safe integer, still a MySQL
 * BIGINT) breaks date math once a trigger adds to it; four-digit years also keep ISO strings
 * and the console's dates ordinary.
 */
export const MAX_INSTANT_MS = 253_402_300_799_999;

/**
 * Longest FIXED_RATE interval / FIXED_DELAY delay: 10 years of 365 days (315 360 000 000 ms).
 * Any longer is a one-shot; and a bounded step keeps `instant + interval` within JavaScript's
 * date range for every instant up to MAX_INSTANT_MS.
 */
export const MAX_INTERVAL_MS = 10 * 365 * 86_400_000;

/** An epoch-millisecond instant Baton can store and compute with: an integer from 0 (1970) to MAX_INSTANT_MS (year 9999). */
export function isMillis(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_INSTANT_MS;
}

/** The reason an instant field that is not isMillis is refused with. */
export const INSTANT_REASON = `must be an integer epoch-millisecond instant from 0 to ${MAX_INSTANT_MS} (year 9999)`;
