import type { ExecutorHeartbeat } from '@baton/protocol';
import { MAX_HANDLER_LENGTH } from '@baton/domain';
import { badRequest, isInt } from '../security/bad-request';

/** Most handler names one executor may offer (what the console lists and checks tasks against). */
export const MAX_HANDLERS = 500;

/** Checks an ExecutorHeartbeat body (what the executors table stores of it). 400 naming the field otherwise. */
export function readHeartbeat(body: Record<string, unknown>): ExecutorHeartbeat {
  const { tenantId, app, url, capacity, inFlight, handlers } = body;
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
  if (handlers !== undefined && (!Array.isArray(handlers) || handlers.length > MAX_HANDLERS || handlers.some((h) => typeof h !== 'string' || h.length === 0 || h.length > MAX_HANDLER_LENGTH))) {
    throw badRequest('handlers', `an array of at most ${MAX_HANDLERS} handler names of 1 to ${MAX_HANDLER_LENGTH} characters`);
  }
  return { ...(body as unknown as ExecutorHeartbeat), tenantId, app, url, capacity, inFlight, handlers: (handlers as string[] | undefined) ?? [] };
}
