import type { EntityManager } from 'typeorm';
import { InboundWebhookEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's inbound webhooks by name (a tenant has a handful, so no paging):
 *
 *   SELECT * FROM inbound_webhooks WHERE tenant_id = ? ORDER BY name     -- uq_inbound_webhooks_tenant_name
 */
export function listInboundWebhooks(manager: EntityManager, tenantId: string): Promise<InboundWebhookEntity[]> {
  return manager.find(InboundWebhookEntity, { where: ofTenant(tenantId, {}), order: { name: 'ASC' } });
}

/**
 * One of the tenant's inbound webhooks, or null (another tenant's is not found):
 *
 *   SELECT * FROM inbound_webhooks WHERE tenant_id = ? AND id = ?        -- primary key
 */
export function findInboundWebhook(manager: EntityManager, tenantId: string, id: number): Promise<InboundWebhookEntity | null> {
  return manager.findOneBy(InboundWebhookEntity, ofTenant(tenantId, { id }));
}
