import type { EntityManager } from 'typeorm';
import { InboundWebhookEntity } from '../../entities';

/**
 * The hook a delivery to `POST /api/hooks/<publicId>` is for, whatever its tenant: the public id
 * is the route's only key (the delivery's signature, checked next, is its credential):
 *
 *   SELECT * FROM inbound_webhooks WHERE public_id = ?                   -- uq_inbound_webhooks_public
 */
export function findInboundWebhookByPublicIdAcrossTenants(manager: EntityManager, publicId: string): Promise<InboundWebhookEntity | null> {
  return manager.findOneBy(InboundWebhookEntity, { publicId });
}
