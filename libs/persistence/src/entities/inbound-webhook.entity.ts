import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { millis } from './columns';

/** How a third party signs its deliveries to an inbound webhook (apps/console/src/inbound-webhooks/verify-signature.ts). */
export type InboundWebhookScheme = 'GITHUB' | 'STRIPE';

/**
 * A URL a tenant gives a third party (`POST /api/hooks/<publicId>`): each delivery whose signature
 * the secret verifies becomes an event named `eventName` of the tenant, its JSON body the payload.
 */
@Entity({ name: 'inbound_webhooks' })
// The public route's only key: a delivery finds its hook (and so its tenant) by it.
@Index('uq_inbound_webhooks_public', ['publicId'], { unique: true })
// A tenant's hooks, by name (one hook per name).
@Index('uq_inbound_webhooks_tenant_name', ['tenantId', 'name'], { unique: true })
export class InboundWebhookEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  /** `ih_` + 32 random bytes base64url: names neither the tenant nor the hook, and cannot be guessed. */
  @Column({ name: 'public_id', type: 'varchar', length: 64 })
  publicId!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ name: 'event_name', type: 'varchar', length: 100 })
  eventName!: string;

  @Column({ type: 'varchar', length: 16 })
  scheme!: InboundWebhookScheme;

  /** The HMAC key, in clear like tenants.executor_secret: verifying a signature needs it. */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
