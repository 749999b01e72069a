import type { JsonValue } from '@baton/domain';
import { MAX_HANDLER_SCHEMA_BYTES, MAX_HANDLER_SCHEMAS_BYTES } from '@baton/protocol';
import type { AnyTaskHandler } from './handler';

/**
 * The heartbeat's `handlerSchemas`: each handler's paramsSchema, by name, within the protocol's
 * bounds — a schema over MAX_HANDLER_SCHEMA_BYTES, or one that would take the sum past
 * MAX_HANDLER_SCHEMAS_BYTES, is left out (its tasks are then saved unchecked) and named in
 * `leftOut`, for a warning at start. Undefined when no handler declares one.
 */
export function handlerSchemas(handlers: Iterable<AnyTaskHandler>): { schemas: Record<string, JsonValue> | undefined; leftOut: string[] } {
  const schemas: Record<string, JsonValue> = {};
  const leftOut: string[] = [];
  let total = 0;
  for (const h of handlers) {
    if (h.paramsSchema === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(h.paramsSchema));
    if (bytes > MAX_HANDLER_SCHEMA_BYTES || total + bytes > MAX_HANDLER_SCHEMAS_BYTES) {
      leftOut.push(`${h.name} (${bytes} bytes)`);
      continue;
    }
    total += bytes;
    schemas[h.name] = h.paramsSchema;
  }
  return { schemas: Object.keys(schemas).length ? schemas : undefined, leftOut };
}
