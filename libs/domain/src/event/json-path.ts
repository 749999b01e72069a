/**
 * A JSON path of an event's payload, as filters and projections name it: keys joined by dots
 * (`customer.tier`, `order.lines.0.sku`); a segment of digits also indexes an array. No wildcards,
 * no escapes: a key with a dot in it cannot be named (payloads that want filtering use plain keys).
 */
export const JSON_PATH_PATTERN = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;
/** Longest path: a path is a column name in disguise, not a document. */
export const MAX_JSON_PATH_LENGTH = 200;
export const JSON_PATH_RULE = `must be keys of A-Z a-z 0-9 _ $ - joined by dots (customer.tier, lines.0.sku), at most ${MAX_JSON_PATH_LENGTH} characters`;

/** Why `path` is not a JSON path, or null. */
export function jsonPathProblem(path: unknown): string | null {
  return typeof path === 'string' && path.length <= MAX_JSON_PATH_LENGTH && JSON_PATH_PATTERN.test(path) ? null : JSON_PATH_RULE;
}

/** What is at `path` in `value`: `{ found: false }` when a segment is missing (or the path walks into a scalar). */
export function readJsonPath(value: unknown, path: string): { found: true; value: unknown } | { found: false } {
  let at = value;
  for (const segment of path.split('.')) {
    if (Array.isArray(at)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= at.length) return { found: false };
      at = at[Number(segment)];
    } else if (typeof at === 'object' && at !== null && Object.prototype.hasOwnProperty.call(at, segment)) {
      at = (at as Record<string, unknown>)[segment];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: at };
}
