/**
 * Baton's one rule for secret-looking names: a property whose name matches one of these is never
 * shown in clear where a past value or another principal's view is shown — the audit log's
 * before/after, a task's versions and their changes, a viewer's tasks, runs, tasks-as-code
 * export, events and alarms (REST and live), the fields of a log line. Names, not values, because the values (hashes, keys, secrets) look
 * like any other string.
 */
export const SECRET_NAMES: readonly RegExp[] = [/password/i, /secret/i, /token/i, /hash$/i, /^key$/i, /apikey$/i, /authorization/i, /cookie/i, /credential/i];

/** What a secret-named value is shown as. */
export const REDACTED = '[redacted]';

/** Whether a property named `name` holds a secret (SECRET_NAMES). */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.some((pattern) => pattern.test(name));
}

/**
 * A deep copy of `value` (arrays and objects, at any depth) with every secret-named property's
 * value replaced by REDACTED; null and absent values are kept as they are. Values that are not a
 * record of fields — dates, errors, binary buffers — are kept as they are (their JSON is not
 * their own properties).
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object' || value instanceof Date || value instanceof Error || ArrayBuffer.isView(value)) return value;
  // A field change inside a record (config.apply's, a version's) is judged by its path, as redactChange judges it alone: a
  // bound added whole (`rateLimit` → { key, perSecond }) would otherwise lose its `key`, found under `after`, not `rateLimit`.
  if (isFieldChange(value)) return Object.fromEntries(Object.entries(redactChange(value)).filter(([, v]) => v !== undefined));
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === undefined) continue;
    const kept = isKeyBound(name, field) ? field : isSecretName(name) && field !== null ? REDACTED : redact(field);
    // Defined, not assigned: a params key named `__proto__` would set the copy's prototype instead, and the key would vanish from a viewer's view.
    Object.defineProperty(out, name, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A task's concurrency, rate, debounce or throttle bound (`concurrency: { key, limit, onLimit, group }`,
 * `rateLimit: { key, perSecond, burst, group }`, `debounce: { key, quietMs, maxWaitMs }`, `throttle: { key,
 * limit, periodMs, keep }`): Baton's own setting, whose `key` names a path of the params, not a secret.
 */
function isKeyBound(name: string, field: unknown): boolean {
  const shape = KEY_BOUNDS[name];
  if (!shape || field === null || typeof field !== 'object' || Array.isArray(field)) return false;
  const bound = field as Record<string, unknown>;
  return typeof bound.key === 'string' && typeof bound[shape.needs] === 'number' && Object.keys(bound).every((k) => shape.fields.includes(k));
}

/** The bounds' exact shapes: only an object of these fields alone is taken for one. */
const KEY_BOUNDS: Record<string, { fields: readonly string[]; needs: string }> = {
  concurrency: { fields: ['key', 'limit', 'onLimit', 'group'], needs: 'limit' },
  rateLimit: { fields: ['key', 'perSecond', 'burst', 'group'], needs: 'perSecond' },
  debounce: { fields: ['key', 'quietMs', 'maxWaitMs'], needs: 'quietMs' },
  throttle: { fields: ['key', 'limit', 'periodMs', 'keep'], needs: 'periodMs' },
};

/**
 * A field change (`params.apiToken`: before → after) with its values redacted: whole when its path
 * means a secret (isSecretPath), else each value as redact shows it under the field's name (a
 * task's `concurrency` set to `{ key, limit }` keeps its key bound's `key`, as the task itself
 * shows it). A key bound's own `key` changed alone (`concurrency.key`) is shown as it is: the
 * name of a params path, not a secret.
 */
export function redactChange<C extends { field: string; before: unknown; after: unknown }>(change: C): C {
  const path = change.field.split('.');
  if (isBoundKeyPath(path) && [change.before, change.after].every((v) => v === undefined || typeof v === 'string')) return change;
  if (path.some(isSecretName)) return { ...change, before: change.before === undefined ? undefined : REDACTED, after: change.after === undefined ? undefined : REDACTED };
  const name = path[path.length - 1];
  const shown = (value: unknown) => (redact({ [name]: value }) as Record<string, unknown>)[name];
  return { ...change, before: shown(change.before), after: shown(change.after) };
}

/**
 * Whether a change's path (from the changed object's top: a task's fields) is a key bound's `key`
 * (`concurrency.key`, `rateLimit.key`, `debounce.key`, `throttle.key`): Baton's own setting,
 * whose name only looks like a secret's. Under `params` the same names are the tenant's, and a
 * `key` there is judged by its name (`params.concurrency.key` stays hidden).
 */
function isBoundKeyPath(path: readonly string[]): boolean {
  return path.length === 2 && path[1] === 'key' && Object.hasOwn(KEY_BOUNDS, path[0]);
}

/** Whether `value` is a field change alone (`{ field, before?, after? }`, redactChange's shape). */
function isFieldChange(value: object): value is { field: string; before: unknown; after: unknown } {
  const change = value as Record<string, unknown>;
  return typeof change.field === 'string' && Object.keys(change).every((k) => k === 'field' || k === 'before' || k === 'after');
}

/**
 * Whether `text` is found (case aside) in the JSON of `value` as redact shows it. A substring
 * search over stored JSON (run search by params) answers a principal who sees secret-named values
 * redacted only with the values whose shown text holds it: a match found only inside a secret
 * would tell the secret, a character at a time.
 */
export function shownTextContains(value: unknown, text: string): boolean {
  return (JSON.stringify(redact(value)) ?? '').toLowerCase().includes(text.toLowerCase());
}
