import { isSecretName, redact, REDACTED } from './redact';
import { isResource, type Located, localRefResolver, REF_KEYWORDS } from './schema-refs';
import { BY_PROPERTY_NAME, eachSubschema, isByName, VALUE_KEYWORDS } from './schema-walk';

/**
 * A handler's params schema (an executor's heartbeat `handlerSchemas`) as a principal who sees
 * secret-named values redacted is shown it (redact's rule, SECRET_NAMES): the values a schema
 * carries (`default`, `examples`, `const`, `enum`) of a property with a secret's name, or below
 * one, are REDACTED (each item of a list, so `enum` and `examples` stay lists); the other values
 * are shown as redact shows params (an object `default` keeps its fields, its secret-named ones
 * hidden). The schema itself — types, names, limits, descriptions — is kept, so the viewer still
 * learns what the params may hold. A definition is judged by its own name, and also by the
 * references to it: one a secret's schema references locally (`password: { $ref: '#/$defs/Plain' }`),
 * or that such a definition references in turn, describes a secret's values whatever its name.
 * A reference to another document is not followed (nothing is fetched).
 */
export function redactParamsSchema(schema: unknown): unknown {
  return shownSchema(schema, false, secretSubschemas(schema));
}

function shownSchema(node: unknown, secret: boolean, secrets: ReadonlySet<object>): unknown {
  if (Array.isArray(node)) return node.map((item) => shownSchema(item, secret, secrets));
  if (node === null || typeof node !== 'object') return node;
  const hides = secret || secrets.has(node);
  return mapFields(node as Record<string, unknown>, (keyword, field) => {
    if (VALUE_KEYWORDS.has(keyword)) return hides ? hidden(field) : redact(field);
    if (isByName(keyword, field)) return mapFields(field, (name, sub) => shownSchema(sub, hides || (BY_PROPERTY_NAME.has(keyword) && isSecretName(name)), secrets));
    return shownSchema(field, hides, secrets);
  });
}

/**
 * The subschemas that describe a secret's values: below a secret-named property, and what they
 * reference locally, at any remove. Each is walked once, so a cycle of references ends.
 */
function secretSubschemas(schema: unknown): Set<object> {
  const secrets = new Set<object>();
  const referenced: Located[] = [];
  const resolve = localRefResolver();
  const walk = (node: unknown, secret: boolean, resource: object): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, secret, resource));
    if (node === null || typeof node !== 'object') return;
    if (secret) {
      if (secrets.has(node)) return;
      secrets.add(node);
    }
    const within = isResource(node) ? node : resource;
    const fields = node as Record<string, unknown>;
    for (const keyword of REF_KEYWORDS) {
      const ref = fields[keyword];
      if (secret && typeof ref === 'string') referenced.push(...resolve(ref, within));
    }
    eachSubschema(fields, (sub, name) => walk(sub, secret || (name !== undefined && isSecretName(name)), within));
  };
  if (schema !== null && typeof schema === 'object') walk(schema, false, schema);
  for (let target = referenced.pop(); target; target = referenced.pop()) walk(target.node, true, target.resource);
  return secrets;
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
