import { IsNull, Not, type EntityManager } from 'typeorm';
import { WebhookChannelEntity, WebhookDeliveryEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's webhook channels by name:
 *
 *   SELECT * FROM webhook_channels WHERE tenant_id = ? ORDER BY name
 */
export function listWebhookChannels(manager: EntityManager, tenantId: string): Promise<WebhookChannelEntity[]> {
  return manager.find(WebhookChannelEntity, { where: ofTenant(tenantId, {}), order: { name: 'ASC' } });
}

/**
 * A channel of the tenant, or null:
 *
 *   SELECT * FROM webhook_channels WHERE id = ? AND tenant_id = ?
 */
export function findWebhookChannel(manager: EntityManager, tenantId: string, id: number): Promise<WebhookChannelEntity | null> {
  return manager.findOneBy(WebhookChannelEntity, ofTenant(tenantId, { id }));
}

/**
 * A new channel (its name unique in the tenant: uq_webhook_channels_tenant_name):
 *
 *   INSERT INTO webhook_channels (tenant_id, name, url, secret, alarm_types, min_severity, created_at) VALUES (…)
 */
export async function insertWebhookChannel(manager: EntityManager, row: WebhookChannelEntity): Promise<void> {
  await manager.insert(WebhookChannelEntity, row);
}

/**
 * Removes a channel of the tenant and what it was still owed (delivered ones stay until purged):
 *
 *   DELETE FROM webhook_channels WHERE id = ? AND tenant_id = ?
 *   DELETE FROM webhook_deliveries WHERE channel_id = ? AND delivered_at IS NULL
 */
export async function deleteWebhookChannel(manager: EntityManager, tenantId: string, id: number): Promise<void> {
  await manager.delete(WebhookChannelEntity, ofTenant(tenantId, { id }));
  await manager.delete(WebhookDeliveryEntity, { channelId: id, deliveredAt: IsNull() });
}

/**
 * A channel's deliveries at a glance: waiting, given up, and the last error of one still tried:
 *
 *   SELECT COUNT(*) FROM webhook_deliveries WHERE channel_id = ? AND delivered_at IS NULL AND failed_at IS NULL
 *   SELECT COUNT(*) FROM webhook_deliveries WHERE channel_id = ? AND failed_at IS NOT NULL
 *   SELECT id, last_error FROM webhook_deliveries WHERE channel_id = ? AND delivered_at IS NULL AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1
 */
export async function webhookDeliveryStand(manager: EntityManager, channelId: number): Promise<{ pending: number; failed: number; lastError: string | null }> {
  const [pending, failed, last] = await Promise.all([
    manager.count(WebhookDeliveryEntity, { where: { channelId, deliveredAt: IsNull(), failedAt: IsNull() } }),
    manager.count(WebhookDeliveryEntity, { where: { channelId, failedAt: Not(IsNull()) } }),
    manager.findOne(WebhookDeliveryEntity, { where: { channelId, deliveredAt: IsNull(), lastError: Not(IsNull()) }, order: { id: 'DESC' }, select: { id: true, lastError: true } }),
  ]);
  return { pending, failed, lastError: last?.lastError ?? null };
}

/**
 * A channel's new address and filter (its name and secret stay):
 *
 *   UPDATE webhook_channels SET url = ?, alarm_types = ?, min_severity = ? WHERE id = ? AND tenant_id = ?
 */
export async function updateWebhookChannel(manager: EntityManager, tenantId: string, id: number, value: Pick<WebhookChannelEntity, 'url' | 'alarmTypes' | 'minSeverity'>): Promise<void> {
  await manager.update(WebhookChannelEntity, ofTenant(tenantId, { id }), value);
}
