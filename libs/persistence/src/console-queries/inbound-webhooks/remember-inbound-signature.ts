import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../../engine-queries/sql';

/** What remembering a delivery's signature found: the first delivery with it, or the key of the delivery that was. */
export type RememberedSignature = { first: true } | { first: false; deliveryKey: string | null };

/**
 * Records that a delivery of the tenant verified with `signature` (under its event idempotency
 * key `deliveryKey`, null when it named none), or finds the delivery that did first:
 *
 *   INSERT IGNORE INTO inbound_webhook_signatures (tenant_id, signature, delivery_key, received_at) VALUES (?, ?, ?, ?)   -- SQLite: INSERT OR IGNORE
 *   SELECT delivery_key FROM inbound_webhook_signatures WHERE tenant_id = ? AND signature = ?                           -- only when not inserted
 *
 * The primary key (tenant_id, signature): of two deliveries of one signature at the same moment,
 * one inserts and the other finds its row.
 */
export async function rememberInboundSignature(manager: EntityManager, input: { tenantId: string; signature: string; deliveryKey: string | null; now: number }): Promise<RememberedSignature> {
  const insert = dialectOf(manager) === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  const { affected } = await execute(manager, `${insert} INTO inbound_webhook_signatures (tenant_id, signature, delivery_key, received_at) VALUES (?, ?, ?, ?)`, [
    input.tenantId,
    input.signature,
    input.deliveryKey,
    input.now,
  ]);
  if (affected > 0) return { first: true };
  const { rows } = await execute<{ delivery_key: string | null }>(manager, 'SELECT delivery_key FROM inbound_webhook_signatures WHERE tenant_id = ? AND signature = ?', [input.tenantId, input.signature]);
  // Gone between the two statements (purged): taken as first, as it would be a moment later.
  if (rows.length === 0) return { first: true };
  return { first: false, deliveryKey: rows[0].delivery_key };
}

/** Forgets a signature remembered by a delivery that then stored nothing (refused, or its tenant busy): its sender may send it again. */
export async function forgetInboundSignature(manager: EntityManager, input: { tenantId: string; signature: string }): Promise<void> {
  await execute(manager, 'DELETE FROM inbound_webhook_signatures WHERE tenant_id = ? AND signature = ?', [input.tenantId, input.signature]);
}
