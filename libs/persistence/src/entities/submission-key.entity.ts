import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintId, millis } from './columns';

/**
 * The idempotency key of a submission to a task that debounces or throttles per key (migration
 * 1798200000000): the run it joined, opened or started, so that a repeat of it answers that run
 * instead of joining a window again. Kept as long as the tenant's ended runs (runsMs).
 */
@Entity({ name: 'submission_keys' })
// The retention purge's oldest rows of a tenant.
@Index('ix_submission_keys_tenant_time', ['tenantId', 'createdAt'])
export class SubmissionKeyEntity {
  @PrimaryColumn({ name: 'task_id', type: 'int' })
  taskId!: number;

  /** `k:<idempotency key>` (a trigger or batch submission) or `e:<key>` (an event), as an ordinary run's fire key would be. */
  @PrimaryColumn({ name: 'fire_key', type: 'varchar', length: 64 })
  fireKey!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** The run; null: the throttle dropped the submission; 0: an open transaction is writing it. */
  @Column({ name: 'run_id', type: 'bigint', nullable: true, transformer: bigintId })
  runId!: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
