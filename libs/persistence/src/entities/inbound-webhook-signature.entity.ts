import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * A signature an inbound webhook delivery verified with (migration 1799380000000): the HMAC a
 * GitHub-style delivery carries covers its body only, no time, so a captured delivery verifies
 * for ever; remembering what was taken is the one defence against sending it again. A signature
 * taken is taken again only as the same delivery (its event's idempotency key), which answers the
 * first event. Kept as long as the tenant's events (runsMs), purged by the engines' history job.
 */
@Entity({ name: 'inbound_webhook_signatures' })
// The retention purge's oldest rows of a tenant.
@Index('ix_inbound_webhook_signatures_tenant_time', ['tenantId', 'receivedAt'])
export class InboundWebhookSignatureEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** The HMAC-SHA256 that verified, 64 lower-case hex digits. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  signature!: string;

  /** The delivery's event idempotency key (`h<hook id>:<delivery id>`); null: the delivery named none. */
  @Column({ name: 'delivery_key', type: 'varchar', length: 62, nullable: true })
  deliveryKey!: string | null;

  @Column({ name: 'received_at', type: 'bigint', transformer: millis })
  receivedAt!: number;
}
