import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_HEADERS } from './signing';

/**
 * A run a wake-up carries as the console just committed it, for the engine to dispatch without
 * reading it back: the columns of its row and of its task as the engine's read of named runs
 * selects them (`id`, `tenant_id`, … and `t_id`, `t_name`, …: readNamedRuns in
 * @baton/persistence), JSON values as the database gives them.
 */
export type WakeRunRow = Record<string, string | number | null>;

/**
 * The header that proves a wake-up's `runs` come from the console: HMAC-SHA256, with the woken
 * engine's wake key (engine_nodes.wake_key, random at each start, never a tenant's), of the
 * request's tenant signature (`x-baton-signature`, which covers the body and its timestamp), in
 * lower-case hex. A tenant signs wake-ups with its executor secret too, so that signature alone
 * would let anyone holding that secret put made-up params into its runs' dispatches.
 */
export const WAKE_ROWS_HEADER = 'x-baton-wake-rows';

/** WAKE_ROWS_HEADER's value for a request signed `signature`, for the engine whose wake key is `key`. */
export function wakeRowsProof(key: string, signature: string): string {
  return createHmac('sha256', key).update(signature).digest('hex');
}

/** Whether `headers` prove the wake-up's rows with `key` (WAKE_ROWS_HEADER over its tenant signature). */
export function provesWakeRows(key: string, headers: Record<string, string | string[] | undefined>): boolean {
  const proof = headers[WAKE_ROWS_HEADER];
  const signature = headers[SIGNATURE_HEADERS.signature];
  if (typeof proof !== 'string' || typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return timingSafeEqual(Buffer.from(proof, 'hex'), Buffer.from(wakeRowsProof(key, signature), 'hex'));
}
