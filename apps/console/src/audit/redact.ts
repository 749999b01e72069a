/**
 * The one list of what the console never shows in clear where it shows a past value — the audit
 * log's before/after, a task's versions and their changes: any property whose name matches is
 * replaced by REDACTED, at any depth. Names, not values, because the
 * values (hashes, keys, secrets) look like any other string.
 */
export const REDACTED_FIELDS: readonly RegExp[] = [/password/i, /secret/i, /token/i, /hash$/i, /^key$/i, /apikey$/i, /authorization/i, /cookie/i, /credential/i];

export const REDACTED = '[redacted]';

function isSecretField(name: string): boolean {
  return REDACTED_FIELDS.some((pattern) => pattern.test(name));
}

/** A deep copy of `value` with every secret field's value replaced by REDACTED (kept absent when absent). */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === undefined) continue;
    out[name] = isSecretField(name) && field !== null ? REDACTED : redact(field);
  }
  return out;
}

/** A field change (`params.apiToken`: before → after) with its values redacted: whole when a name on its path is a secret's, else each value as redact does. */
export function redactChange<C extends { field: string; before: unknown; after: unknown }>(change: C): C {
  if (change.field.split('.').some(isSecretField)) return { ...change, before: change.before === undefined ? undefined : REDACTED, after: change.after === undefined ? undefined : REDACTED };
  return { ...change, before: redact(change.before), after: redact(change.after) };
}
