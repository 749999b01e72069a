import { MAX_HANDLER_SCHEMA_BYTES, MAX_HANDLER_SCHEMAS_BYTES, type ExecutorHeartbeat } from '@baton/protocol';
import { MAX_HANDLER_LENGTH } from '@baton/domain';
import { badRequest, isInt } from '../security/bad-request';

/** Most handler names one executor may offer (what the console lists and checks tasks against). */
export const MAX_HANDLERS = 500;

/** Checks an ExecutorHeartbeat body (what the executors table stores of it). 400 naming the field otherwise. */
export function readHeartbeat(body: Record<string, unknown>): ExecutorHeartbeat {
  const { tenantId, app, url, capacity, inFlight, handlers, handlerSchemas, protocolVersion } = body;
  if (typeof tenantId !== 'string' || tenantId.length === 0) throw badRequest('tenantId', 'required');
  if (typeof app !== 'string' || app.length === 0 || app.length > 100) throw badRequest('app', 'a name of 1 to 100 characters');
  if (typeof url !== 'string' || url.length === 0 || url.length > 500) throw badRequest('url', 'an http(s) URL of at most 500 characters');
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw badRequest('url', 'not a URL');
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw badRequest('url', 'must be http or https');
  if (!isInt(capacity, 0, 1_000_000)) throw badRequest('capacity', 'an integer from 0 to 1000000');
  if (!isInt(inFlight, 0, 10_000_000)) throw badRequest('inFlight', 'a non-negative integer');
  // Stored in an INT column, and what engines send depends on it (2: runs ahead of their instant).
  if (protocolVersion !== undefined && !isInt(protocolVersion, 1, 1_000)) throw badRequest('protocolVersion', 'an integer from 1 to 1000');
  if (handlers !== undefined && (!Array.isArray(handlers) || handlers.length > MAX_HANDLERS || handlers.some((h) => typeof h !== 'string' || h.length === 0 || h.length > MAX_HANDLER_LENGTH))) {
    throw badRequest('handlers', `an array of at most ${MAX_HANDLERS} handler names of 1 to ${MAX_HANDLER_LENGTH} characters`);
  }
  const offered = (handlers as string[] | undefined) ?? [];
  if (handlerSchemas !== undefined) checkHandlerSchemas(handlerSchemas, offered);
  return { ...(body as unknown as ExecutorHeartbeat), tenantId, app, url, capacity, inFlight, handlers: offered };
}

/** `handlerSchemas`: a JSON schema object per offered handler, within the protocol's size bounds. */
function checkHandlerSchemas(value: unknown, offered: readonly string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('handlerSchemas', 'an object of JSON schemas by handler name');
  for (const [name, schema] of Object.entries(value)) {
    if (!offered.includes(name)) throw badRequest(`handlerSchemas.${name}`, 'names no handler of this heartbeat');
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw badRequest(`handlerSchemas.${name}`, 'a JSON schema object');
    const bytes = Buffer.byteLength(JSON.stringify(schema));
    if (bytes > MAX_HANDLER_SCHEMA_BYTES) throw badRequest(`handlerSchemas.${name}`, `at most ${MAX_HANDLER_SCHEMA_BYTES} bytes serialised (got ${bytes})`);
  }
  const total = Buffer.byteLength(JSON.stringify(value));
  if (total > MAX_HANDLER_SCHEMAS_BYTES) throw badRequest('handlerSchemas', `at most ${MAX_HANDLER_SCHEMAS_BYTES} bytes serialised, the whole object (got ${total})`);
}
