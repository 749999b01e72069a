import { describe, expect, it } from 'vitest';
import { MAX_HANDLER_SCHEMA_BYTES, MAX_HANDLER_SCHEMAS_BYTES } from '@baton/protocol';
import { handlerSchemasOfSize } from '../../../test/protocol/handler-schemas-of-size';
import { defineHandler } from './handler';
import { handlerSchemas } from './handler-schemas';

const noop = () => null;

describe('handler params schemas in the heartbeat', () => {
  it('sends each declared schema by handler name, and nothing when none is declared', () => {
    const resize = defineHandler('resize', noop, { paramsSchema: { type: 'object', required: ['width'], properties: { width: { type: 'integer', minimum: 1 } } } });
    expect(handlerSchemas([resize, defineHandler('plain', noop)])).toEqual({ schemas: { resize: resize.paramsSchema }, leftOut: [] });
    expect(handlerSchemas([defineHandler('plain', noop)])).toEqual({ schemas: undefined, leftOut: [] });
  });

  it('leaves out a schema over 16 KB, and those past 60 KB for the whole object, naming them', () => {
    const big = (n: number) => ({ type: 'object', description: 'x'.repeat(n) });
    const handlers = [
      defineHandler('huge', noop, { paramsSchema: big(MAX_HANDLER_SCHEMA_BYTES) }),
      ...[1, 2, 3, 4, 5].map((i) => defineHandler(`h${i}`, noop, { paramsSchema: big(15_000) })),
    ];
    const { schemas, leftOut } = handlerSchemas(handlers);
    expect(Object.keys(schemas!)).toEqual(['h1', 'h2', 'h3', 'h4']);
    expect(leftOut).toEqual([expect.stringMatching(/^huge \(\d+ bytes\)$/), expect.stringMatching(/^h5 \(\d+ bytes\)$/)]);
  });

  it('counts the whole serialised object, names and punctuation too (what an engine measures and stores)', () => {
    const names = Array.from({ length: 5 }, (_, i) => `handler-${i}-`.padEnd(100, 'x'));
    const declared = (bytes: number) => Object.entries(handlerSchemasOfSize(names, bytes)).map(([name, schema]) => defineHandler(name, noop, { paramsSchema: schema }));
    const exact = handlerSchemas(declared(MAX_HANDLER_SCHEMAS_BYTES));
    expect(Object.keys(exact.schemas!)).toEqual(names);
    expect(Buffer.byteLength(JSON.stringify(exact.schemas))).toBe(MAX_HANDLER_SCHEMAS_BYTES);
    expect(handlerSchemas(declared(MAX_HANDLER_SCHEMAS_BYTES + 1)).leftOut).toEqual([expect.stringMatching(/^handler-4-x+ \(\d+ bytes\)$/)]);
  });

  it('refuses a schema that is not a JSON object', () => {
    expect(() => defineHandler('bad', noop, { paramsSchema: 'object' })).toThrow('defineHandler("bad"): paramsSchema must be a JSON schema object');
  });
});
