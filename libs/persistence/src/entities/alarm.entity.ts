import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AlarmType, Severity } from '@baton/domain';
import { StoredJson, bigintId, json, millis } from './columns';

/**
 * Alarm history and outbox in one table: a row is written in the same transaction as the
 * state change that causes it; `published_at` stays null until the relay has published it.
 */
@Entity({ name: 'alarms' })
@Index('ix_alarms_tenant_time', ['tenantId', 'raisedAt', 'id'])
// The relay's scan: "unpublished alarms, oldest first".
@Index('ix_alarms_outbox', ['publishedAt', 'id'])
// The relay's claim: "this tenant's unpublished alarms, oldest first" (no walk over its history).
@Index('ix_alarms_tenant_outbox', ['tenantId', 'publishedAt', 'id'])
// The silence window: "the latest alarm of this task and type".
@Index('ix_alarms_collapse', ['taskId', 'type', 'raisedAt'])
@Index('ux_alarms_uid', ['uid'], { unique: true })
export class AlarmEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  /**
   * The alarm's stable id (a UUID) — the `id` of its message on the topic and at the browser, the
   * same on every delivery, so consumers drop repeats by it. Made by the engine when it writes the
   * row, or by the executor SDK for a business alarm (then an executor's repeated callback cannot
   * write it twice). Null only for rows written before it existed (then `row-<id>` stands in).
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  uid!: string | null;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 32 })
  type!: AlarmType;

  @Column({ type: 'varchar', length: 8 })
  severity!: Severity;

  @Column({ name: 'task_id', type: 'int', nullable: true })
  taskId!: number | null;

  @Column({ name: 'run_id', type: 'bigint', nullable: true, transformer: bigintId })
  runId!: number | null;

  @Column({ name: 'executor_id', type: 'int', nullable: true })
  executorId!: number | null;

  @Column({ type: 'varchar', length: 1000 })
  message!: string;

  @Column({ type: 'text', nullable: true, transformer: json })
  data!: StoredJson;

  /** Repeats collapsed into this alarm within the task's silence window. */
  @Column({ type: 'int', default: 1 })
  count!: number;

  @Column({ name: 'raised_at', type: 'bigint', transformer: millis })
  raisedAt!: number;

  @Column({ name: 'published_at', type: 'bigint', nullable: true, transformer: millis })
  publishedAt!: number | null;

  /**
   * The count its last publish carried (null: not published yet, or before this was kept). A count
   * above it is news the topic has not had: AlarmCounts puts the alarm back into the outbox for it,
   * at most once a second across the cluster.
   */
  @Column({ name: 'published_count', type: 'int', nullable: true })
  publishedCount!: number | null;

  @Column({ name: 'acked_at', type: 'bigint', nullable: true, transformer: millis })
  ackedAt!: number | null;

  /** Username that acknowledged it. */
  @Column({ name: 'acked_by', type: 'varchar', length: 100, nullable: true })
  ackedBy!: string | null;
}
