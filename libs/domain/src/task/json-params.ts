import { MAX_PARAMS_BYTES } from '../types';
import type { FieldError } from '../validation/field-error';
import { isPlainObject } from '../validation/field-error';

/** Why a number past ±(2^53 − 1) is refused: what is stored must be what was sent. */
export const BEYOND_SAFE_INTEGERS = `is beyond ±${Number.MAX_SAFE_INTEGER} (2^53 − 1): JSON readers round such numbers (12345678901234567890 reads as 12345678901234567000), so it would not be stored as sent; send it as a string`;

/**
 * Most levels of arrays and objects a JSON value of a named field — a run's params, an event's
 * payload — may nest (the field's own object is level 1): deeper is never real data, and it costs
 * stack in every reader (the executor's among them). The console's body parser lets a body nest
 * much deeper (MAX_BODY_DEPTH) so that this rule can name the field.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The first reason `value` is not plain JSON data, with the path to it (`params.items[2]`), or
 * null. JSON.stringify would quietly drop undefined and functions and write NaN as null, so a
 * value that only survives stringify is still refused: what is stored must be what was sent.
 */
export function jsonProblem(value: unknown, path: string): FieldError | null {
  return walk(value, path, path, 0, new Set());
}

/** `root`: the field's own path, which a value nested too deep is refused under (its deep path would be `payload.a.a.a…` ×32). */
function walk(value: unknown, path: string, root: string, depth: number, ancestors: Set<object>): FieldError | null {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { field: path, reason: 'must be a finite number (NaN and Infinity are not JSON)' };
    // Past 2^53 a JSON reader (the console's too) keeps ~16 significant digits: 12345678901234567890 arrives as
    // 12345678901234567000, so two customers' ids would be one key and the handler would get another id.
    return Math.abs(value) <= Number.MAX_SAFE_INTEGER ? null : { field: path, reason: BEYOND_SAFE_INTEGERS };
  }
  if (typeof value !== 'object') return { field: path, reason: `is not JSON (a ${typeof value})` };
  if (depth >= MAX_JSON_DEPTH) return { field: root, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (ancestors.has(value)) return { field: path, reason: 'refers to itself (a cycle is not JSON)' };
  if (!Array.isArray(value) && !isPlainObject(value)) return { field: path, reason: 'is not JSON (not a plain object)' };

  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        // A hole in a sparse array reads as undefined, which is refused like any undefined.
        const problem = walk(value[i], `${path}[${i}]`, root, depth + 1, ancestors);
        if (problem) return problem;
      }
    } else {
      for (const [key, item] of Object.entries(value)) {
        const problem = walk(item, `${path}.${key}`, root, depth + 1, ancestors);
        if (problem) return problem;
      }
    }
    return null;
  } finally {
    ancestors.delete(value);
  }
}

/** Bytes of `text` encoded as UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes, as encoders write it). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Why `params` cannot be stored (not JSON, or larger than MAX_PARAMS_BYTES serialised), or null. */
export function paramsProblem(params: unknown, field = 'params'): FieldError | null {
  const problem = jsonProblem(params, field);
  if (problem) return problem;
  const bytes = utf8ByteLength(JSON.stringify(params));
  return bytes > MAX_PARAMS_BYTES
    ? { field, reason: `is ${bytes} bytes as JSON; at most ${MAX_PARAMS_BYTES} are allowed` }
    : null;
}
