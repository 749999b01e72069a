import { Column, Entity, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * How long a tenant's history is kept (task 0), or one task's override. A null field takes the
 * next level's value: task → tenant → the cluster's ceiling (BATON_*_RETENTION_MS), and no level
 * may keep longer than the ceiling (the engines apply the smaller one whatever is stored here).
 */
@Entity({ name: 'retention_policies' })
export class RetentionPolicyEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** 0: the tenant's policy. */
  @PrimaryColumn({ name: 'task_id', type: 'int' })
  taskId!: number;

  /** Ended runs (and their logs) are purged this long after they ended. */
  @Column({ name: 'runs_ms', type: 'bigint', nullable: true, transformer: millis })
  runsMs!: number | null;

  /** Run logs are purged this long after their run ended (at most runsMs). */
  @Column({ name: 'logs_ms', type: 'bigint', nullable: true, transformer: millis })
  logsMs!: number | null;

  /** Alarms are purged this long after they were raised (tenant level only). */
  @Column({ name: 'alarms_ms', type: 'bigint', nullable: true, transformer: millis })
  alarmsMs!: number | null;

  /** The newest this many runs of each task are kept whatever their age. */
  @Column({ name: 'min_runs_kept', type: 'int', nullable: true })
  minRunsKept!: number | null;

  @Column({ name: 'updated_at', type: 'bigint', transformer: millis })
  updatedAt!: number;
}
