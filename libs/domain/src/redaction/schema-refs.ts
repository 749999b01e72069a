import { eachSubschema } from './schema-walk';

/**
 * The local references of a JSON schema (`$ref`, `$dynamicRef`: `#/$defs/Secret`, `#/definitions/Token`,
 * `#Secret` by `$anchor`) resolved to the subschemas they name, without fetching anything: a
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

/**
 * A resolver of one schema's local references: the subschemas `ref`, read in `resource`, names —
 * none for a reference that is not local or names nothing there; each subschema of an anchor
 * named twice (an invalid schema: which one a validator takes is its own choice). Each
 * resource's anchors are indexed once, so a schema of many references costs one walk of each.
 */
export function localRefResolver(): (ref: string, resource: object) => Located[] {
  const anchorsOf = new Map<object, Map<string, object[]>>();
  return (ref, resource) => {
    if (!ref.startsWith('#')) return [];
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return []; // a malformed escape names nothing
    }
    if (fragment === '' || fragment.startsWith('/')) return atPointer(resource, fragment);
    let anchors = anchorsOf.get(resource);
    if (!anchors) anchorsOf.set(resource, (anchors = anchorIndex(resource)));
    return (anchors.get(fragment) ?? []).map((node) => ({ node, resource }));
  };
}

/** The object at a JSON pointer (RFC 6901) below `resource`, with the resource it lies in. */
function atPointer(resource: object, pointer: string): Located[] {
  let at: unknown = resource;
  let within = resource;
  for (const token of pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, token)) return [];
    at = (at as Record<string, unknown>)[token];
    if (at !== null && typeof at === 'object' && !Array.isArray(at) && isResource(at)) within = at;
  }
  return at !== null && typeof at === 'object' ? [{ node: at, resource: within }] : [];
}

/** The subschemas of `resource` (not of a resource embedded in it) by the anchors they declare: `$anchor`, `$dynamicAnchor`, draft-07's `$id: '#name'`. */
function anchorIndex(resource: object): Map<string, object[]> {
  const index = new Map<string, object[]>();
  const pending: unknown[] = [resource];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    if (node === null || typeof node !== 'object' || Array.isArray(node) || (node !== resource && isResource(node))) continue;
    const fields = node as Record<string, unknown>;
    const names = [fields.$anchor, fields.$dynamicAnchor, typeof fields.$id === 'string' && fields.$id.startsWith('#') ? fields.$id.slice(1) : undefined];
    for (const name of new Set(names)) if (typeof name === 'string') index.set(name, [...(index.get(name) ?? []), node]);
    eachSubschema(fields, (sub) => pending.push(sub));
  }
  return index;
}
