import type { EntityManager } from 'typeorm';
import { InboundWebhookEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * Deletes one of the tenant's inbound webhooks (its URL answers 401 from then on); false when the
 * tenant has no such hook:
 *
 *   DELETE FROM inbound_webhooks WHERE tenant_id = ? AND id = ?          -- primary key
 */
export async function deleteInboundWebhook(manager: EntityManager, tenantId: string, id: number): Promise<boolean> {
  const result = await manager.delete(InboundWebhookEntity, ofTenant(tenantId, { id }));
  return (result.affected ?? 0) > 0;
}
