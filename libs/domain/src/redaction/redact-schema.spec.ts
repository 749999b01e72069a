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

  it('keeps a schema with no values as it is, booleans and a property named __proto__ included', () => {
    const schema = JSON.parse('{"type":"object","additionalProperties":false,"properties":{"__proto__":{"type":"string"},"key":true}}') as unknown;
    const shown = redactParamsSchema(schema);
    expect(JSON.stringify(shown)).toBe(JSON.stringify(schema));
    expect(Object.getPrototypeOf((shown as { properties: object }).properties)).toBe(Object.prototype);
  });
});
