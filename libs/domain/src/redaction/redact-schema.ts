import { isSecretName, redact, REDACTED } from './redact';

/**
 * The keywords of a JSON schema whose values are instances of what it describes — a handler's
 * params, or one property of them — not schema: an executor may publish a secret's value there
 * (`apiToken: { type: 'string', default: 'tok_live_…' }`).
 */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['default', 'examples', 'const', 'enum']);

/** The keywords holding subschemas by a property's name (or a definition's): the names are not keywords, and name the values below them. */
const BY_PROPERTY_NAME: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** Keywords holding subschemas by a property's name whose subschema describes the whole object, not that property's value. */
const BY_TRIGGER_NAME: ReadonlySet<string> = new Set(['dependentSchemas', 'dependencies']);

/**
 * A handler's params schema (an executor's heartbeat `handlerSchemas`) as a principal who sees
 * secret-named values redacted is shown it (redact's rule, SECRET_NAMES): the values a schema
 * carries (`default`, `examples`, `const`, `enum`) of a property with a secret's name, or below
 * one, are REDACTED (each item of a list, so `enum` and `examples` stay lists); the other values
 * are shown as redact shows params (an object `default` keeps its fields, its secret-named ones
 * hidden). The schema itself — types, names, limits, descriptions — is kept, so the viewer still
 * learns what the params may hold. A schema's `$ref` is not followed: a definition is judged by
 * its own name.
 */
export function redactParamsSchema(schema: unknown): unknown {
  return shownSchema(schema, false);
}

function shownSchema(node: unknown, secret: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => shownSchema(item, secret));
  if (node === null || typeof node !== 'object') return node;
  return mapFields(node as Record<string, unknown>, (keyword, field) => {
    if (VALUE_KEYWORDS.has(keyword)) return secret ? hidden(field) : redact(field);
    const named = BY_PROPERTY_NAME.has(keyword) || BY_TRIGGER_NAME.has(keyword);
    if (named && field !== null && typeof field === 'object' && !Array.isArray(field)) {
      return mapFields(field as Record<string, unknown>, (name, sub) => shownSchema(sub, secret || (BY_PROPERTY_NAME.has(keyword) && isSecretName(name))));
    }
    return shownSchema(field, secret);
  });
}

/** A secret's value hidden, a list item by item; null kept, as redact keeps it. */
function hidden(value: unknown): unknown {
  if (value === null) return null;
  return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
}

function mapFields(record: Record<string, unknown>, shown: (name: string, field: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(record)) {
    // Defined, not assigned: a property named `__proto__` would set the copy's prototype instead.
    Object.defineProperty(out, name, { value: shown(name, field), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
