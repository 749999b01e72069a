import type { EntityManager } from 'typeorm';
import { InboundWebhookEntity } from '../../entities';

/**
 * A tenant's new inbound webhook; a name the tenant already uses is refused by
 * uq_inbound_webhooks_tenant_name (a unique violation the caller answers as 409):
 *
 *   INSERT INTO inbound_webhooks (public_id, tenant_id, name, event_name, scheme, secret, created_at) VALUES (…)
 */
export async function insertInboundWebhook(manager: EntityManager, row: Omit<InboundWebhookEntity, 'id'>): Promise<InboundWebhookEntity> {
  const entity = manager.create(InboundWebhookEntity, row);
  await manager.insert(InboundWebhookEntity, entity);
  return entity;
}
