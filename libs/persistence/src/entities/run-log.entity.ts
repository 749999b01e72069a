import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintId, millis } from './columns';

/** A log line of a run attempt, from the handler's logger (it rides the callback) or the engine. */
@Entity({ name: 'run_logs' })
@Index('ix_run_logs_run', ['runId', 'id'])
export class RunLogEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'run_id', type: 'bigint', transformer: bigintId })
  runId!: number;

  @Column({ type: 'int' })
  attempt!: number;

  @Column({ type: 'bigint', transformer: millis })
  at!: number;

  @Column({ type: 'varchar', length: 8 })
  level!: string;

  @Column({ type: 'text' })
  message!: string;
}
