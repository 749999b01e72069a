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

/** An epoch-millisecond instant: a safe integer (negative instants are before 1970, allowed). */
export function isMillis(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
