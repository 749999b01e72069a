import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../engine-queries/sql';

/**
 * Queues the audit record just inserted on this connection (insertAuditRecords, same transaction)
 * for the tenant's webhook channels that take AUDIT events, so the event is owed exactly when the
 * change commits:
 *
 *   INSERT INTO webhook_deliveries (tenant_id, channel_id, alarm_id, alarm_count, audit_id, attempts, next_at, …)
 *   SELECT tenant_id, id, NULL, 0, LAST_INSERT_ID(), 0, ?, … FROM webhook_channels
 *    WHERE tenant_id = ? AND alarm_types LIKE '%"AUDIT"%'
 *
 * (SQLite: last_insert_rowid().) The id is read in the statement itself, before the insert it
 * makes changes it. The tenant's channels are a handful (uq_webhook_channels_tenant_name range);
 * AUDIT is only ever named explicitly in the JSON list, quoted. Returns how many were queued.
 */
export async function queueAuditWebhookDeliveries(manager: EntityManager, input: { tenantId: string; now: number }): Promise<number> {
  const lastId = dialectOf(manager) === 'mysql' ? 'LAST_INSERT_ID()' : 'last_insert_rowid()';
  const { affected } = await execute(
    manager,
    `INSERT INTO webhook_deliveries (tenant_id, channel_id, alarm_id, alarm_count, audit_id, attempts, next_at, delivered_at, failed_at, last_error, created_at)
     SELECT tenant_id, id, NULL, 0, ${lastId}, 0, ?, NULL, NULL, NULL, ? FROM webhook_channels
      WHERE tenant_id = ? AND alarm_types LIKE '%"AUDIT"%'`,
    [input.now, input.now, input.tenantId],
  );
  return affected;
}
