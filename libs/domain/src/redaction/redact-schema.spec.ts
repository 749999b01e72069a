import { describe, expect, it } from 'vitest';
import { REDACTED } from './redact';
import { redactParamsSchema } from './redact-schema';

describe('redactParamsSchema', () => {
  it("hides the default, examples, const and enum of a secret-named property and keeps its schema", () => {
    const schema = {
      type: 'object',
      required: ['apiToken'],
      properties: {
        apiToken: { type: 'string', minLength: 10, description: 'the API token', default: 'tok_live_1', examples: ['tok_a', 'tok_b'] },
        dbPassword: { const: 'hunter2' },
        key: { enum: ['k1', 'k2', null] },
        region: { type: 'string', enum: ['eu', 'us'], default: 'eu', examples: ['eu'] },
      },
    };
    expect(redactParamsSchema(schema)).toEqual({
      type: 'object',
      required: ['apiToken'],
      properties: {
        apiToken: { type: 'string', minLength: 10, description: 'the API token', default: REDACTED, examples: [REDACTED, REDACTED] },
        dbPassword: { const: REDACTED },
        key: { enum: [REDACTED, REDACTED, REDACTED] },
        region: { type: 'string', enum: ['eu', 'us'], default: 'eu', examples: ['eu'] },
      },
    });
  });

  it('hides every value below a secret-named property, at any depth and through any keyword', () => {
    const schema = {
      properties: {
        credentials: {
          type: 'object',
          properties: { user: { default: 'svc' }, extra: { items: { enum: ['x'] } } },
          anyOf: [{ properties: { user: { const: 'root' } } }],
          default: { user: 'svc', pass: 'p' },
        },
      },
    };
    expect(redactParamsSchema(schema)).toEqual({
      properties: {
        credentials: {
          type: 'object',
          properties: { user: { default: REDACTED }, extra: { items: { enum: [REDACTED] } } },
          anyOf: [{ properties: { user: { const: REDACTED } } }],
          default: REDACTED,
        },
      },
    });
  });

  it('shows the values of the other properties as redact shows params: their secret-named fields hidden', () => {
    const schema = {
      type: 'object',
      default: { region: 'eu', apiToken: 'tok_1' },
      examples: [{ region: 'us', secret: 's' }],
      properties: { target: { type: 'object', default: { url: 'https://x', authorization: 'Bearer y' } } },
      items: [{ enum: [{ password: 'p', n: 1 }] }],
    };
    expect(redactParamsSchema(schema)).toEqual({
      type: 'object',
      default: { region: 'eu', apiToken: REDACTED },
      examples: [{ region: 'us', secret: REDACTED }],
      properties: { target: { type: 'object', default: { url: 'https://x', authorization: REDACTED } } },
      items: [{ enum: [{ password: REDACTED, n: 1 }] }],
    });
  });

  it('judges a pattern property and a definition by their names; a dependent schema by none', () => {
    const schema = {
      patternProperties: { '^token_': { default: 't' }, '^n_': { default: 1 } },
      $defs: { secret: { default: 's' }, region: { default: 'eu' } },
      dependentSchemas: { password: { properties: { region: { default: 'eu' } } } },
    };
    expect(redactParamsSchema(schema)).toEqual({
      patternProperties: { '^token_': { default: REDACTED }, '^n_': { default: 1 } },
      $defs: { secret: { default: REDACTED }, region: { default: 'eu' } },
      dependentSchemas: { password: { properties: { region: { default: 'eu' } } } },
    });
  });

  it("hides the values of a definition a secret's schema references locally, at any remove, whatever the definition's name", () => {
    const schema = {
      properties: {
        password: { $ref: '#/$defs/Plain' },
        apiToken: { $ref: '#/definitions/Wrapped' },
        region: { $ref: '#/$defs/Region' },
      },
      $defs: { Plain: { type: 'string', default: 'hunter2', examples: ['p1'] }, Region: { enum: ['eu', 'us'] } },
      definitions: {
        Wrapped: { allOf: [{ $ref: '#/definitions/Inner' }] },
        Inner: { const: 'tok_1', properties: { back: { $ref: '#/definitions/Wrapped' } } },
      },
    };
    expect(redactParamsSchema(schema)).toEqual({
      properties: schema.properties,
      $defs: { Plain: { type: 'string', default: REDACTED, examples: [REDACTED] }, Region: { enum: ['eu', 'us'] } },
      definitions: {
        Wrapped: { allOf: [{ $ref: '#/definitions/Inner' }] },
        Inner: { const: REDACTED, properties: { back: { $ref: '#/definitions/Wrapped' } } },
      },
    });
  });

  it('follows a local reference by escaped pointer, by anchor ($ref, $dynamicRef) and within an embedded resource; not one to another document', () => {
    const schema = {
      properties: {
        secret: {
          anyOf: [{ $ref: '#/$defs/a~1b' }, { $ref: '#/$defs/with%20space' }, { $ref: '#Anchored' }, { $dynamicRef: '#Dynamic' }, { $ref: '#Twice' }, { $ref: '#/$defs/Embedded' }],
        },
        token: { anyOf: [{ $ref: 'https://example.com/other.json#/$defs/Far' }, { $ref: 'other.json#/$defs/Far' }] },
      },
      $defs: {
        'a/b': { default: 'p1' },
        'with space': { default: 'p2' },
        Named: { $anchor: 'Anchored', default: 'p3' },
        Dynamic: { $dynamicAnchor: 'Dynamic', default: 'p5' },
        // An anchor named twice (invalid): whichever a validator takes, neither shows its value.
        Twice1: { $anchor: 'Twice', default: 'p6' },
        Twice2: { $anchor: 'Twice', default: 'p7' },
        Embedded: { $id: 'https://example.com/embedded.json', $ref: '#/$defs/Inner', $defs: { Inner: { default: 'p4' } } },
        Inner: { default: 'not-the-embedded-one' },
        Far: { default: 'far' },
      },
    };
    const shown = redactParamsSchema(schema) as { $defs: Record<string, { default?: unknown; $defs?: Record<string, { default: unknown }> }> };
    expect(shown.$defs['a/b'].default).toBe(REDACTED);
    expect(shown.$defs['with space'].default).toBe(REDACTED);
    expect(shown.$defs.Named.default).toBe(REDACTED);
    expect(shown.$defs.Dynamic.default).toBe(REDACTED);
    expect([shown.$defs.Twice1.default, shown.$defs.Twice2.default]).toEqual([REDACTED, REDACTED]);
    expect(shown.$defs.Embedded.$defs?.Inner.default).toBe(REDACTED);
    expect(shown.$defs.Inner.default).toBe('not-the-embedded-one');
    expect(shown.$defs.Far.default).toBe('far');
  });

  it('keeps a schema with no values as it is, booleans and a property named __proto__ included', () => {
    const schema = JSON.parse('{"type":"object","additionalProperties":false,"properties":{"__proto__":{"type":"string"},"key":true}}') as unknown;
    const shown = redactParamsSchema(schema);
    expect(JSON.stringify(shown)).toBe(JSON.stringify(schema));
    expect(Object.getPrototypeOf((shown as { properties: object }).properties)).toBe(Object.prototype);
  });
});
