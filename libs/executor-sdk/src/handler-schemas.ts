import type { JsonValue } from '@baton/domain';
import { MAX_HANDLER_SCHEMA_BYTES, MAX_HANDLER_SCHEMAS_BYTES } from '@baton/protocol';
import type { AnyTaskHandler } from './handler';

/**
 * The heartbeat's `handlerSchemas`: each handler's paramsSchema, by name, within the protocol's
 * bounds — a schema over MAX_HANDLER_SCHEMA_BYTES, or one that would take the whole object past
 * MAX_HANDLER_SCHEMAS_BYTES serialised, is left out (its tasks are then saved unchecked) and
 * named in `leftOut`, for a warning at start. Undefined when no handler declares one.
 */
export function handlerSchemas(handlers: Iterable<AnyTaskHandler>): { schemas: Record<string, JsonValue> | undefined; leftOut: string[] } {
  const schemas: Record<string, JsonValue> = {};
  const leftOut: string[] = [];
  let total = Buffer.byteLength('{}');
  for (const h of handlers) {
    if (h.paramsSchema === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(h.paramsSchema));
    // What the entry adds to the serialised object: `"name":schema`, after a comma but for the first.
    const entry = (Object.keys(schemas).length ? 1 : 0) + Buffer.byteLength(JSON.stringify(h.name)) + 1 + bytes;
    if (bytes > MAX_HANDLER_SCHEMA_BYTES || total + entry > MAX_HANDLER_SCHEMAS_BYTES) {
      leftOut.push(`${h.name} (${bytes} bytes)`);
      continue;
    }
    total += entry;
    schemas[h.name] = h.paramsSchema;
  }
  return { schemas: Object.keys(schemas).length ? schemas : undefined, leftOut };
}
