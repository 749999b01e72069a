import { THROTTLE_KEEP } from '../types';
import type { FieldError } from '../validation/field-error';
import { integerInRange, isPlainObject } from '../validation/field-error';
import { keyFieldProblem, unknownFields } from '../key/validate-keys';

/** Shortest debounce quiet time and throttle period: below it a window is noise, not a bound. */
export const MIN_WINDOW_MS = 100;
/** Longest debounce quiet time and throttle period: a day. */
export const MAX_WINDOW_MS = 86_400_000;
/** Longest a debounced burst waits from its first submission: 7 days. */
export const MAX_DEBOUNCE_WAIT_MS = 7 * 86_400_000;
/** Most runs a throttled key starts per period. */
export const MAX_THROTTLE_LIMIT = 1000;

const DEBOUNCE_FIELDS = ['key', 'quietMs', 'maxWaitMs'];
const THROTTLE_FIELDS = ['key', 'limit', 'periodMs', 'keep'];

/** Every problem of a task's `debounce` (null: none), each naming its field. */
export function debounceProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'debounce', reason: 'must be null or an object { key, quietMs, maxWaitMs }' }];
  const errors = unknownFields(value, DEBOUNCE_FIELDS, 'debounce');
  keyFieldProblem(value.key, 'debounce.key', errors);
  const quiet = integerInRange(value.quietMs, MIN_WINDOW_MS, MAX_WINDOW_MS);
  if (quiet) errors.push({ field: 'debounce.quietMs', reason: quiet });
  if (value.maxWaitMs !== undefined) {
    const floor = quiet === null ? (value.quietMs as number) : MIN_WINDOW_MS;
    const wait = integerInRange(value.maxWaitMs, floor, MAX_DEBOUNCE_WAIT_MS);
    if (wait) errors.push({ field: 'debounce.maxWaitMs', reason: quiet === null && wait.startsWith('must be at least') ? `must be at least quietMs (${floor})` : wait });
  }
  return errors;
}

/** Every problem of a task's `throttle` (null: none), each naming its field. */
export function throttleProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'throttle', reason: 'must be null or an object { key, limit, periodMs, keep }' }];
  const errors = unknownFields(value, THROTTLE_FIELDS, 'throttle');
  keyFieldProblem(value.key, 'throttle.key', errors);
  const limit = integerInRange(value.limit, 1, MAX_THROTTLE_LIMIT);
  if (limit) errors.push({ field: 'throttle.limit', reason: limit });
  const period = integerInRange(value.periodMs, MIN_WINDOW_MS, MAX_WINDOW_MS);
  if (period) errors.push({ field: 'throttle.periodMs', reason: period });
  if (value.keep !== undefined && !(THROTTLE_KEEP as readonly unknown[]).includes(value.keep)) {
    errors.push({ field: 'throttle.keep', reason: `must be one of ${THROTTLE_KEEP.join(', ')}` });
  }
  return errors;
}

/** A task debounces or throttles its submissions, not both: which would decide first is no rule a reader can guess. */
export function windowsProblems(debounce: unknown, throttle: unknown): FieldError[] {
  const errors = [...(debounce === undefined ? [] : debounceProblems(debounce)), ...(throttle === undefined ? [] : throttleProblems(throttle))];
  if (isPlainObject(debounce) && isPlainObject(throttle)) errors.push({ field: 'throttle', reason: 'must be null when debounce is set: a task debounces or throttles, not both' });
  return errors;
}

/** Default of debounce.maxWaitMs: ten quiet times, at most MAX_DEBOUNCE_WAIT_MS. */
export function defaultDebounceWait(quietMs: number): number {
  return Math.min(10 * quietMs, MAX_DEBOUNCE_WAIT_MS);
}
