import { Transform } from 'class-transformer';

/** Keeps the value exactly as sent (no class-transformer conversion): the service checks it, naming the field. */
export const Raw = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);

/** Handler params are any JSON value (the wire's JsonValue), an object as a rule: their OpenAPI schema. */
export const ANY_JSON = {
  oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: {} }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }],
  nullable: true,
};
