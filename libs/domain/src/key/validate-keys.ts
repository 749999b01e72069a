import { KEY_ON_LIMIT } from '../types';
import type { FieldError } from '../validation/field-error';
import { integerInRange, isPlainObject } from '../validation/field-error';
import { jsonPathProblem } from '../event/json-path';

/** Largest `concurrency.limit`: past a thousand runs at once a key is no bound. */
export const MAX_KEY_LIMIT = 1000;
/** Largest `rateLimit.perSecond` and `rateLimit.burst`. */
export const MAX_KEY_RATE = 10_000;

const CONCURRENCY_FIELDS = ['key', 'limit', 'onLimit'];
const RATE_FIELDS = ['key', 'perSecond', 'burst'];

/** Every problem of a task's `concurrency` (null: none), each naming its field. */
export function keyConcurrencyProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'concurrency', reason: 'must be null or an object { key, limit, onLimit }' }];
  const errors = unknownFields(value, CONCURRENCY_FIELDS, 'concurrency');
  keyFieldProblem(value.key, 'concurrency.key', errors);
  const limit = integerInRange(value.limit, 1, MAX_KEY_LIMIT);
  if (limit) errors.push({ field: 'concurrency.limit', reason: limit });
  if (value.onLimit !== undefined && !(KEY_ON_LIMIT as readonly unknown[]).includes(value.onLimit)) {
    errors.push({ field: 'concurrency.onLimit', reason: `must be one of ${KEY_ON_LIMIT.join(', ')}` });
  }
  return errors;
}

/** Every problem of a task's `rateLimit` (null: none), each naming its field. */
export function keyRateLimitProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'rateLimit', reason: 'must be null or an object { key, perSecond, burst }' }];
  const errors = unknownFields(value, RATE_FIELDS, 'rateLimit');
  keyFieldProblem(value.key, 'rateLimit.key', errors);
  const rate = value.perSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > MAX_KEY_RATE) {
    errors.push({ field: 'rateLimit.perSecond', reason: `must be a number above 0 and at most ${MAX_KEY_RATE}` });
  }
  if (value.burst !== undefined) {
    const burst = integerInRange(value.burst, 1, MAX_KEY_RATE);
    if (burst) errors.push({ field: 'rateLimit.burst', reason: burst });
  }
  return errors;
}

/** A bound's `key` (the JSON path of the params holding the key), pushed to `errors` when missing or malformed. */
export function keyFieldProblem(value: unknown, field: string, errors: FieldError[]): void {
  if (value === undefined) errors.push({ field, reason: 'is required: the JSON path of the params that holds the key (customerId)' });
  else {
    const problem = jsonPathProblem(value);
    if (problem) errors.push({ field, reason: problem });
  }
}

/** The fields of a bound `prefix` that are none of `allowed`, each named. */
export function unknownFields(value: Record<string, unknown>, allowed: readonly string[], prefix: string): FieldError[] {
  return Object.keys(value)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({ field: `${prefix}.${k}`, reason: `is not a field of ${prefix} (${allowed.join(', ')})` }));
}
