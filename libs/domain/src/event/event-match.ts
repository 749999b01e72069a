import type { EventFilter, EventProjection, JsonValue } from '../types';
import { readJsonPath } from './json-path';

/**
 * Whether an event's payload passes an EVENT trigger's filter: every entry holds. An entry is
 * `path: scalar` (the value at the path is that string, number, boolean or null — equal as JSON,
 * so 1 does not equal "1"), or `path: { exists: true }` (the path leads somewhere, null included)
 * or `{ exists: false }` (it does not).
 */
export function eventMatches(payload: JsonValue, filter: EventFilter): boolean {
  return Object.entries(filter).every(([path, want]) => {
    const at = readJsonPath(payload, path);
    if (isExistsTest(want)) return at.found === want.exists;
    return at.found && at.value === want;
  });
}

/**
 * The params of the run an event starts: its whole payload (no projection), or an object with
 * each projected param read from its path. A path the payload lacks leaves its param out (the
 * handler's own default applies), rather than inventing a null the sender never sent.
 */
export function eventRunParams(payload: JsonValue, projection: EventProjection | null): JsonValue {
  if (projection === null) return payload;
  const params: Record<string, JsonValue> = {};
  for (const [name, path] of Object.entries(projection)) {
    const at = readJsonPath(payload, path);
    if (at.found) params[name] = at.value as JsonValue;
  }
  return params;
}

/** A filter entry that tests presence rather than a value. */
export function isExistsTest(value: unknown): value is { exists: boolean } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as { exists?: unknown }).exists === 'boolean';
}
