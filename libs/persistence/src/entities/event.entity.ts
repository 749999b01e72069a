import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { StoredJson, json, millis } from './columns';

/**
 * An event a tenant sent (POST /api/events), with the runs it started. Written in the same
 * transaction as those runs (the console's submissions lane), so an event is never stored without
 * its runs, nor runs without their event. Kept as long as the tenant's ended runs (runsMs).
 */
@Entity({ name: 'events' })
// The events page, newest first, and the retention purge's oldest events of a tenant.
@Index('ix_events_tenant_time', ['tenantId', 'receivedAt', 'id'])
// The events page filtered by name.
@Index('ix_events_tenant_name', ['tenantId', 'name', 'receivedAt', 'id'])
// One event per tenant and idempotency key (NULLs, events without a key, are never equal).
@Index('uq_events_tenant_key', ['tenantId', 'idempotencyKey'], { unique: true })
export class EventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The JSON object sent (at most MAX_EVENT_PAYLOAD_BYTES). */
  @Column({ type: 'text', transformer: json })
  payload!: StoredJson;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 62, nullable: true })
  idempotencyKey!: string | null;

  /** JSON array of the ids of the runs the event started ([] when it matched no task). */
  @Column({ name: 'run_ids', type: 'text', transformer: json })
  runIds!: number[];

  @Column({ name: 'received_at', type: 'bigint', transformer: millis })
  receivedAt!: number;
}
