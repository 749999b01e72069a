import { Transform } from 'class-transformer';

/** The fields each DTO class (its prototype) declares @Raw; isRawField walks the parents too. */
const RAW_FIELDS = new WeakMap<object, Set<string>>();

/** Keeps the value exactly as sent (no class-transformer conversion): the service checks it, naming the field. */
export const Raw = (): PropertyDecorator => (target, key) => {
  Transform(({ obj, key: field }) => (obj as Record<string, unknown>)[field])(target, key);
  const own = RAW_FIELDS.get(target) ?? new Set<string>();
  own.add(String(key));
  RAW_FIELDS.set(target, own);
};

/** Whether `field` of DTO class `type` (or of a class it extends) is declared @Raw. */
export function isRawField(type: abstract new (...args: never[]) => unknown, field: string): boolean {
  for (let proto: object | null = type.prototype as object; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    if (RAW_FIELDS.get(proto)?.has(field)) return true;
  }
  return false;
}

/** Handler params are any JSON value (the wire's JsonValue), an object as a rule: their OpenAPI schema. */
export const ANY_JSON = {
  oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: {} }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }],
  nullable: true,
};
