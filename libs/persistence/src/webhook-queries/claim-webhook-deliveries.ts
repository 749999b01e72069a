import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, numOrNull, placeholders, skipLocked } from '../engine-queries/sql';

/** A delivery to make now: where, with what secret, and the alarm row or audit record it carries. */
export interface DueDelivery {
  id: number;
  tenantId: string;
  attempts: number;
  createdAt: number;
  url: string;
  secret: string;
  /** One of the two is set: an alarm, or an audit record (an AUDIT event). */
  alarmId: number | null;
  auditId: number | null;
}

/**
 * Takes up to `limit` due deliveries for `leaseMs` (their next_at moves past the lease, so
 * another engine does not send them meanwhile; a sender that dies leaves them due again then):
 *
 *   SELECT d.id, … FROM webhook_deliveries d JOIN webhook_channels c ON c.id = d.channel_id
 *    WHERE d.delivered_at IS NULL AND d.failed_at IS NULL AND d.next_at <= ?
 *    ORDER BY d.next_at LIMIT ? FOR UPDATE SKIP LOCKED                    -- ix_webhook_deliveries_due
 *   UPDATE webhook_deliveries SET next_at = ? WHERE id IN (…)
 *
 * A delivery whose channel was deleted is not returned (the join) and stays behind, unsent.
 */
export async function claimWebhookDeliveries(manager: EntityManager, input: { now: number; leaseMs: number; limit: number }): Promise<DueDelivery[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT d.id, d.tenant_id, d.attempts, d.created_at, d.alarm_id, d.audit_id, c.url, c.secret
       FROM webhook_deliveries d JOIN webhook_channels c ON c.id = d.channel_id
      WHERE d.delivered_at IS NULL AND d.failed_at IS NULL AND d.next_at <= ?
      ORDER BY d.next_at LIMIT ? ${skipLocked(dialectOf(manager))}`,
    [input.now, input.limit],
  );
  if (rows.length === 0) return [];
  await execute(manager, `UPDATE webhook_deliveries SET next_at = ? WHERE id IN (${placeholders(rows.length)})`, [input.now + input.leaseMs, ...rows.map((r) => num(r.id))]);
  return rows.map((r) => ({ id: num(r.id), tenantId: String(r.tenant_id), attempts: num(r.attempts), createdAt: num(r.created_at), alarmId: numOrNull(r.alarm_id), auditId: numOrNull(r.audit_id), url: String(r.url), secret: String(r.secret) }));
}

/**
 * Records a try: delivered (2xx), or failed — then due again after `retryAt`, or given up
 * (`failed`) with its last error:
 *
 *   UPDATE webhook_deliveries SET attempts = attempts + 1, delivered_at = ? | next_at = ?, last_error = ? [, failed_at = ?] WHERE id = ?
 */
export async function recordWebhookTry(
  manager: EntityManager,
  input: { id: number; now: number } & ({ delivered: true } | { delivered: false; error: string; retryAt: number | null }),
): Promise<void> {
  if (input.delivered) {
    await execute(manager, 'UPDATE webhook_deliveries SET attempts = attempts + 1, delivered_at = ?, last_error = NULL WHERE id = ?', [input.now, input.id]);
    return;
  }
  await execute(manager, 'UPDATE webhook_deliveries SET attempts = attempts + 1, next_at = ?, last_error = ?, failed_at = ? WHERE id = ?', [
    input.retryAt ?? input.now,
    input.error.slice(0, 500),
    input.retryAt === null ? input.now : null,
    input.id,
  ]);
}

