import { readJsonPath } from '../event/json-path';

/** Longest key stored on a run (the runs.run_key column is varchar(160)). */
export const MAX_RUN_KEY_LENGTH = 160;
/** What a longer key keeps of itself before its digest. */
const KEPT = 120;

/**
 * A run's key value: what its params hold at `path` (a JSON path, `customer.id`). A string is
 * itself, another JSON value its JSON text (`42`, `true`, `{"a":1}`); nothing there, or null, is
 * the empty key '' — runs without a key value are bounded together rather than not at all, so a
 * caller that forgets the field cannot start unbounded work. The empty string is that same key.
 * A key longer than MAX_RUN_KEY_LENGTH keeps its first 120 characters and a digest of the whole:
 * two such keys share a place only if both their beginnings and their digests agree.
 */
export function runKeyOf(params: unknown, path: string): string {
  const at = readJsonPath(params, path);
  if (!at.found || at.value === null || at.value === undefined) return '';
  const text = typeof at.value === 'string' ? at.value : JSON.stringify(at.value);
  if (text.length <= MAX_RUN_KEY_LENGTH) return text;
  return `${text.slice(0, KEPT)}…#${fnv1a(text, 0x811c9dc5)}${fnv1a(text, 0x01000193)}`;
}

/** 32-bit FNV-1a of the UTF-16 code units, from `seed`, as 8 hex digits. */
function fnv1a(text: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
