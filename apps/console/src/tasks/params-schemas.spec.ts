import { describe, expect, it } from 'vitest';
import { CATASTROPHIC_INPUT, CATASTROPHIC_PATTERN, nestedAnyOf } from '../../../../test/support/hostile-schemas';
import { linearRegExp, MAX_ERRORS_PER_TASK, MAX_TEXT, ParamsSchemas, re2Spelling, type SchemaVerdict } from './params-schemas';

const run = (schema: object, params?: unknown): SchemaVerdict => new ParamsSchemas().run(params === undefined ? { schema: JSON.stringify(schema) } : { schema: JSON.stringify(schema), params });

describe('ParamsSchemas', () => {
  it('runs patterns in linear time: the catastrophic backtracking case answers at once, with the right verdict', () => {
    const schemas = new ParamsSchemas();
    const schema = JSON.stringify({ type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC_PATTERN } }, patternProperties: { '^(x+x+)+y$': { type: 'integer' } } });
    expect(schemas.run({ schema })).toEqual({ errors: [] }); // compiled, untimed
    // On V8's RegExp the first takes 1.2 s at 28 a's, doubling per character; here 100,000: a
    // backtracking engine would not answer within the test's timeout.
    expect(schemas.run({ schema, params: { s: CATASTROPHIC_INPUT } })).toEqual({ errors: [{ field: 'params.s', reason: 'must match pattern "^(a+)+$"' }] });
    expect(schemas.run({ schema, params: { s: `${'a'.repeat(100_000)}!` } })).toEqual({ errors: [{ field: 'params.s', reason: 'must match pattern "^(a+)+$"' }] });
    expect(schemas.run({ schema, params: { s: 'a'.repeat(100_000) } })).toEqual({ errors: [] });
    const key = `${'x'.repeat(50_000)}y`;
    expect(schemas.run({ schema, params: { [key]: 'no', [key.slice(0, -1)]: 'not matched' } })).toEqual({ errors: [{ field: `params.${key}`.slice(0, MAX_TEXT - 1) + '…', reason: 'must be integer' }] });
  });

  it('matches as JSON Schema says (ECMA-262, unanchored) for the syntax schemas use', () => {
    const cases: Array<[string, string[]]> = [
      ['^[a-z0-9_-]{3,16}$', ['abc', 'ab', 'a_b-c', 'ABC', 'x'.repeat(17)]],
      ['\\d{4}-\\d{2}-\\d{2}', ['2026-03-01', 'on 2026-03-01!', '2026-3-1']],
      ['^\\/api\\/[\\w.-]+$', ['/api/a.b-c', '/api/', 'api/x']],
      ['^(?:png|jpe?g)$', ['png', 'jpg', 'jpeg', 'gif', 'xpng']],
      ['^(?<year>\\d{4})$', ['2026', '26']],
      ['^[^\\]]+$', ['abc', 'a]c']],
      ['^\\$\\{\\w+\\}$', ['${name}', '$name']],
      ['^\\u00e9t\\u00E9$', ['été', 'ete']],
      ['^[\\u0000-\\u007F]*$', ['ascii', 'héllo']],
      ['^\\u{1F600}$', ['😀', 'x']],
      ['^\\uD83D\\uDE00$', ['😀', 'x']],
      ['\\\\u0041', ['\\u0041', 'A']],
      ['^\\S+@\\S+\\.\\w+$', ['a@b.example', 'a @b.c']],
    ];
    for (const [pattern, inputs] of cases) {
      const re2 = linearRegExp(pattern);
      const ecma = new RegExp(pattern, 'u');
      for (const input of inputs) expect([pattern, input, re2.test(input)]).toEqual([pattern, input, ecma.test(input)]);
    }
  });

  it('rewrites only the \\u escapes RE2 spells otherwise', () => {
    expect(re2Spelling('^\\u00e9\\u{1f600}\\uD83D\\uDE00$')).toBe('^\\x{00e9}\\x{1f600}\\x{1f600}$');
    expect(re2Spelling('\\\\u0041 \\d \\. \\uZZZZ')).toBe('\\\\u0041 \\d \\. \\uZZZZ');
  });

  it('makes a schema whose pattern RE2 cannot run unusable, saying which pattern and why', () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a$', '(?<!x)y']) {
      const verdict = run({ type: 'object', properties: { s: { type: 'string', pattern } } }, { s: 'aa' });
      expect(verdict).toEqual({ unusable: expect.stringContaining(`pattern ${JSON.stringify(pattern)} is not supported: patterns run on RE2, in linear time, which has no backreferences or lookaround`) });
    }
    expect(run({ type: 'object', patternProperties: { '(a)\\1': { type: 'string' } } })).toEqual({ unusable: expect.stringContaining('is not supported') });
  });

  it('leaves format unchecked, as before', () => {
    expect(run({ type: 'object', properties: { to: { type: 'string', format: 'email' }, at: { format: 'date-time' } } }, { to: 'not an address', at: 'later' })).toEqual({ errors: [] });
  });

  it('reports each problem once, at most 20 per task, each text bounded', () => {
    // 2^10 paths through the anyOf, each reporting the leaf's failure (Ajv: 2,047 errors, 290 KB).
    const verdict = run(nestedAnyOf(10), { s: {} });
    expect('errors' in verdict && verdict.errors).toEqual([
      { field: 'params.s.never', reason: "is required by the handler's params schema" },
      { field: 'params.s', reason: 'must match a schema in anyOf' },
    ]);
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'integer' }])), additionalProperties: false };
    const many = run(wide, { ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, 'x'])), extra: 1 });
    expect('errors' in many && many.errors).toHaveLength(MAX_ERRORS_PER_TASK);
    expect('errors' in many && many.errors[MAX_ERRORS_PER_TASK - 1]).toEqual({ field: 'params', reason: 'and 12 more problems, not listed' });
    const huge = run({ enum: Array.from({ length: 1000 }, (_, i) => `value-${i}`) }, 'none');
    expect('errors' in huge && huge.errors[0].reason).toHaveLength(MAX_TEXT);
    expect('errors' in huge && huge.errors[0].reason.endsWith('…')).toBe(true);
  });
});
