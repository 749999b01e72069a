import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';

/**
 * Whether any of the tenant's webhook channels takes AUDIT events, so that records written
 * together (insertAuditRecords with many rows) can skip queueing deliveries one record at a time
 * when none does — the common case:
 *
 *   SELECT 1 FROM webhook_channels WHERE tenant_id = ? AND alarm_types LIKE '%"AUDIT"%' LIMIT 1
 *
 * A handful of rows per tenant (uq_webhook_channels_tenant_name range), as queueAuditWebhookDeliveries reads.
 */
export async function takesAuditWebhooks(manager: EntityManager, tenantId: string): Promise<boolean> {
  const { rows } = await execute(manager, `SELECT 1 AS one FROM webhook_channels WHERE tenant_id = ? AND alarm_types LIKE '%"AUDIT"%' LIMIT 1`, [tenantId]);
  return rows.length > 0;
}
