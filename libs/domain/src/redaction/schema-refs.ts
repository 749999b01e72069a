import { eachSubschema } from './schema-walk';

/**
 * The local references of a JSON schema (`$ref`, `$dynamicRef`: `#/$defs/Secret`, `#/definitions/Token`,
 * `#Secret` by `$anchor`) resolved to the subschema they name, without fetching anything: a
 * reference to another document (`other.json#/…`, `https://…`) is not local and resolves to
 * nothing. A fragment is read in the schema resource it is written in: the nearest enclosing
 * subschema with an `$id` of its own (not `#…`, draft-07's anchor), else the whole schema.
 */

/** The keywords whose string value references a subschema. */
export const REF_KEYWORDS: readonly string[] = ['$ref', '$dynamicRef'];

/** A subschema, with the schema resource it lies in (where its own references are read). */
export interface Located {
  node: object;
  resource: object;
}

/** Whether `node` is the root of a schema resource of its own (an `$id` that is not draft-07's `#anchor`). */
export function isResource(node: object): boolean {
  const id = (node as Record<string, unknown>).$id;
  return typeof id === 'string' && !id.startsWith('#');
}

/** The subschema `ref` names, read in `resource`; undefined for a reference that is not local or names nothing there. */
export function resolveLocalRef(ref: string, resource: object): Located | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined; // a malformed escape names nothing
  }
  if (fragment === '' || fragment.startsWith('/')) return atPointer(resource, fragment);
  const node = withAnchor(resource, fragment);
  return node ? { node, resource } : undefined;
}

/** The object at a JSON pointer (RFC 6901) below `resource`, with the resource it lies in. */
function atPointer(resource: object, pointer: string): Located | undefined {
  let at: unknown = resource;
  let within = resource;
  for (const token of pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
    if (at !== null && typeof at === 'object' && !Array.isArray(at) && isResource(at)) within = at;
  }
  return at !== null && typeof at === 'object' ? { node: at, resource: within } : undefined;
}

/** The subschema of `resource` (not of a resource embedded in it) whose `$anchor`, `$dynamicAnchor` or draft-07 `$id: '#name'` is `name`. */
function withAnchor(resource: object, name: string): object | undefined {
  const pending: unknown[] = [resource];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    if (node === null || typeof node !== 'object' || Array.isArray(node) || (node !== resource && isResource(node))) continue;
    const fields = node as Record<string, unknown>;
    if (fields.$anchor === name || fields.$dynamicAnchor === name || fields.$id === `#${name}`) return node;
    eachSubschema(fields, (sub) => pending.push(sub));
  }
  return undefined;
}
