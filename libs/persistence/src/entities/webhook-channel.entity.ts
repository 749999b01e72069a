import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Severity, WebhookEventType } from '@baton/domain';
import { json, millis } from './columns';

/** A tenant's webhook: alarms matching its rule are POSTed to `url`, signed with `secret`. */
@Entity({ name: 'webhook_channels' })
@Index('uq_webhook_channels_tenant_name', ['tenantId', 'name'], { unique: true })
export class WebhookChannelEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 500 })
  url!: string;

  /** HMAC key of the X-Baton-Signature header. Kept in clear: the engines sign with it. */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  /** Alarm types sent (and AUDIT: the audit log's changes), JSON array; null: every alarm type. */
  @Column({ name: 'alarm_types', type: 'text', nullable: true, transformer: json })
  alarmTypes!: WebhookEventType[] | null;

  /** The least severe alarm sent. */
  @Column({ name: 'min_severity', type: 'varchar', length: 8 })
  minSeverity!: Severity;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
