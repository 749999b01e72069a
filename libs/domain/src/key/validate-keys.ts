import { KEY_ON_LIMIT } from '../types';
import type { FieldError } from '../validation/field-error';
import { integerInRange, isPlainObject } from '../validation/field-error';
import { jsonPathProblem } from '../event/json-path';
import { NAME_PATTERN } from '../validation/names';

/** Largest `concurrency.limit`: past a thousand runs at once a key is no bound. */
export const MAX_KEY_LIMIT = 1000;
/** Largest `rateLimit.perSecond` and `rateLimit.burst`. */
export const MAX_KEY_RATE = 10_000;
/**
 * Smallest `rateLimit.perSecond`: one run a day (1 / 86,400). A key's next token is then at most a
 * day away; a rate near zero put it past any date (1e-300 a second: due in 1e303 ms).
 */
export const MIN_KEY_RATE = 1 / 86_400;
/** Longest key group name: the scope it makes (`g:` and the name) fits runs.key_scope, varchar(66). */
export const MAX_KEY_GROUP_LENGTH = 64;

const CONCURRENCY_FIELDS = ['key', 'limit', 'onLimit', 'group'];
const RATE_FIELDS = ['key', 'perSecond', 'burst', 'group'];

/** Every problem of a task's `concurrency` (null: none), each naming its field. */
export function keyConcurrencyProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'concurrency', reason: 'must be null or an object { key, limit, onLimit, group }' }];
  const errors = unknownFields(value, CONCURRENCY_FIELDS, 'concurrency');
  keyFieldProblem(value.key, 'concurrency.key', errors);
  const limit = integerInRange(value.limit, 1, MAX_KEY_LIMIT);
  if (limit) errors.push({ field: 'concurrency.limit', reason: limit });
  if (value.onLimit !== undefined && !(KEY_ON_LIMIT as readonly unknown[]).includes(value.onLimit)) {
    errors.push({ field: 'concurrency.onLimit', reason: `must be one of ${KEY_ON_LIMIT.join(', ')}` });
  }
  keyGroupProblem(value.group, 'concurrency.group', errors);
  return errors;
}

/** Every problem of a task's `rateLimit` (null: none), each naming its field. */
export function keyRateLimitProblems(value: unknown): FieldError[] {
  if (value === null) return [];
  if (!isPlainObject(value)) return [{ field: 'rateLimit', reason: 'must be null or an object { key, perSecond, burst, group }' }];
  const errors = unknownFields(value, RATE_FIELDS, 'rateLimit');
  keyFieldProblem(value.key, 'rateLimit.key', errors);
  const rate = value.perSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < MIN_KEY_RATE || rate > MAX_KEY_RATE) {
    errors.push({ field: 'rateLimit.perSecond', reason: `must be a number from 1/86400 (one a day) to ${MAX_KEY_RATE}` });
  }
  if (value.burst !== undefined) {
    const burst = integerInRange(value.burst, 1, MAX_KEY_RATE);
    if (burst) errors.push({ field: 'rateLimit.burst', reason: burst });
  }
  keyGroupProblem(value.group, 'rateLimit.group', errors);
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

/** A bound's `group` (absent or null: none), pushed to `errors` when it is no name. */
function keyGroupProblem(value: unknown, field: string, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_KEY_GROUP_LENGTH || !NAME_PATTERN.test(value)) {
    errors.push({ field, reason: `must be a name of 1 to ${MAX_KEY_GROUP_LENGTH} characters A-Z a-z 0-9 . _ - (the tasks naming it share their keys), or null` });
  }
}

/** The fields of a bound `prefix` that are none of `allowed`, each named. */
export function unknownFields(value: Record<string, unknown>, allowed: readonly string[], prefix: string): FieldError[] {
  return Object.keys(value)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({ field: `${prefix}.${k}`, reason: `is not a field of ${prefix} (${allowed.join(', ')})` }));
}
