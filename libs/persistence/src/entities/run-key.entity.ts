import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * One concurrency or rate key of a task or of a key group (migrations 1797800000000,
 * 1798400000000): its row lock is the key's mutex — admitting runs of the key and releasing its
 * held runs take it in turn (engine-queries keys/lock-run-key.ts), runs of other keys never wait
 * for it — and it stores the key's token bucket when a rate limit takes from it, and its throttle
 * period when its task throttles.
 */
@Entity({ name: 'run_keys' })
// The retention purge's least recently used rows of a tenant (migration 1798300000000).
@Index('ix_run_keys_rest', ['tenantId', 'usedAt'])
export class RunKeyEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** Whose key it is (domain keyScope): `t:<taskId>`, a task's own, or `g:<group>`, a key group's. */
  @PrimaryColumn({ name: 'key_scope', type: 'varchar', length: 66 })
  keyScope!: string;

  /** The key's value (domain runKeyOf). */
  @PrimaryColumn({ name: 'key_value', type: 'varchar', length: 160 })
  keyValue!: string;

  /** The task whose bound last wrote the bucket or throttle period: the purge reads its rules to tell the row at rest. Null: none wrote one. */
  @Column({ name: 'rules_task_id', type: 'int', nullable: true })
  rulesTaskId!: number | null;

  /** Tokens left in thousandths as of refilledAt; null: the bucket was never used (full). */
  @Column({ name: 'tokens_milli', type: 'int', nullable: true })
  tokensMilli!: number | null;

  @Column({ name: 'refilled_at', type: 'bigint', nullable: true, transformer: millis })
  refilledAt!: number | null;

  /** A throttled key's current period (domain ThrottlePeriod, migration 1798100000000): its start; null: never throttled. */
  @Column({ name: 'throttle_started_at', type: 'bigint', nullable: true, transformer: millis })
  throttleStartedAt!: number | null;

  /** Runs started in the period, its trailing run's included. */
  @Column({ name: 'throttle_count', type: 'int', nullable: true })
  throttleCount!: number | null;

  /** When the period's trailing run (keep LAST) starts; null: none. */
  @Column({ name: 'throttle_trailing_at', type: 'bigint', nullable: true, transformer: millis })
  throttleTrailingAt!: number | null;

  /** When a run of the key last took the row, to within KEY_USE_STEP_MS; null: not since migration 1798300000000. */
  @Column({ name: 'used_at', type: 'bigint', nullable: true, transformer: millis })
  usedAt!: number | null;
}
