/**
 * Params schemas a hostile tenant can declare within the size limits, for the tests of the
 * bounded params check (issue 20 item 3).
 */

/**
 * `depth` levels of anyOf, each of two $refs to the next, over a leaf no value fits: 2^depth paths
 * through it, each reporting its failures (unbounded, Ajv takes ~100 ms and answers 18 MB of
 * errors at 16 levels, 4× that per 2 more). 1.6 KB at 22 levels.
 */
export function nestedAnyOf(depth: number): object {
  const definitions: Record<string, object> = {};
  for (let i = 0; i < depth; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  definitions[`d${depth}`] = { type: 'object', required: ['never'] };
  return { type: 'object', properties: { s: { $ref: '#/definitions/d0' } }, definitions };
}

/** A pattern V8's backtracking RegExp takes 1.2 s for against CATASTROPHIC_INPUT (28 a's and a "!"), doubling per character. */
export const CATASTROPHIC_PATTERN = '^(a+)+$';
export const CATASTROPHIC_INPUT = `${'a'.repeat(28)}!`;
