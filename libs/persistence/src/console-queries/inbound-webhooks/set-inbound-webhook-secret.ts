import type { EntityManager } from 'typeorm';
import { InboundWebhookEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * Replaces the signing secret of one of the tenant's hooks (rotation: deliveries signed with the
 * old one are refused from then on); false when the tenant has no such hook:
 *
 *   UPDATE inbound_webhooks SET secret = ? WHERE tenant_id = ? AND id = ?   -- primary key
 */
export async function setInboundWebhookSecret(manager: EntityManager, tenantId: string, id: number, secret: string): Promise<boolean> {
  const result = await manager.update(InboundWebhookEntity, ofTenant(tenantId, { id }), { secret });
  return (result.affected ?? 0) > 0;
}
