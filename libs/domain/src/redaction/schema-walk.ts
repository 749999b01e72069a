/**
 * How a JSON schema nests subschemas, for the walks that read one without a validator (a viewer's
 * redacted copy, its local references).
 */

/**
 * The keywords of a JSON schema whose values are instances of what it describes — a handler's
 * params, or one property of them — not schema: an executor may publish a secret's value there
 * (`apiToken: { type: 'string', default: 'tok_live_…' }`).
 */
export const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['default', 'examples', 'const', 'enum']);

/** The keywords holding subschemas by a property's name (or a definition's): the names are not keywords, and name the values below them. */
export const BY_PROPERTY_NAME: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** Keywords holding subschemas by a property's name whose subschema describes the whole object, not that property's value. */
export const BY_TRIGGER_NAME: ReadonlySet<string> = new Set(['dependentSchemas', 'dependencies']);

/** Whether `field`, under `keyword`, holds subschemas by name (`properties: { apiToken: {…} }`). */
export function isByName(keyword: string, field: unknown): field is Record<string, unknown> {
  return (BY_PROPERTY_NAME.has(keyword) || BY_TRIGGER_NAME.has(keyword)) && field !== null && typeof field === 'object' && !Array.isArray(field);
}

/**
 * Calls `visit` with what lies below a schema object's keywords but its values (VALUE_KEYWORDS):
 * a subschema, a list of them, or a keyword's own data (`required`'s names); under a keyword
 * by name each subschema with its name, a property's (BY_PROPERTY_NAME) marked so.
 */
export function eachSubschema(node: Record<string, unknown>, visit: (sub: unknown, propertyName?: string) => void): void {
  for (const [keyword, field] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(keyword)) continue;
    if (!isByName(keyword, field)) visit(field);
    else for (const [name, sub] of Object.entries(field)) visit(sub, BY_PROPERTY_NAME.has(keyword) ? name : undefined);
  }
}
