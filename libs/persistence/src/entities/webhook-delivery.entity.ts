import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintId, millis } from './columns';

/** One alarm (at one count), or one audit record, owed to one webhook channel, until delivered or given up. */
@Entity({ name: 'webhook_deliveries' })
// Queued once per channel, alarm and count: the relay's insert of a repeat is a no-op.
@Index('uq_webhook_deliveries_alarm', ['channelId', 'alarmId', 'alarmCount'], { unique: true })
// The sender's claim: "not delivered, not given up, due".
@Index('ix_webhook_deliveries_due', ['deliveredAt', 'failedAt', 'nextAt'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'channel_id', type: 'int' })
  channelId!: number;

  /** The alarm carried; null for an audit event. */
  @Column({ name: 'alarm_id', type: 'bigint', nullable: true, transformer: bigintId })
  alarmId!: number | null;

  /** The audit record carried (an AUDIT event); null for an alarm. */
  @Column({ name: 'audit_id', type: 'bigint', nullable: true, transformer: bigintId })
  auditId!: number | null;

  @Column({ name: 'alarm_count', type: 'int' })
  alarmCount!: number;

  @Column({ type: 'int' })
  attempts!: number;

  @Column({ name: 'next_at', type: 'bigint', transformer: millis })
  nextAt!: number;

  @Column({ name: 'delivered_at', type: 'bigint', nullable: true, transformer: millis })
  deliveredAt!: number | null;

  @Column({ name: 'failed_at', type: 'bigint', nullable: true, transformer: millis })
  failedAt!: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
