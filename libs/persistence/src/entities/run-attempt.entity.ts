import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AttemptState, TimelineClock } from '@baton/domain';
import { bigintId, millis } from './columns';

/**
 * An attempt of a run that ended and was retried (or handed back): the run row, retried in place,
 * keeps only its latest attempt, so retryRunAttempt copies the ending one here first (same transaction).
 */
@Entity({ name: 'run_attempts' })
@Index('uq_run_attempts_run', ['runId', 'attempt'], { unique: true })
export class RunAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'run_id', type: 'bigint', transformer: bigintId })
  runId!: number;

  @Column({ type: 'int' })
  attempt!: number;

  /**
   * How the attempt ended (FAILED, TIMED_OUT, or HANDED_BACK: sent ahead and never started by its
   * executor; how far it had got, DISPATCHED or ACCEPTED, in attempts kept before 2026-12-07): its
   * timeline says how far it got.
   */
  @Column({ type: 'varchar', length: 16 })
  state!: AttemptState;

  @Column({ name: 'executor_id', type: 'int', nullable: true })
  executorId!: number | null;

  @Column({ name: 'due_at', type: 'bigint', transformer: millis })
  dueAt!: number;

  @Column({ name: 'dispatched_at', type: 'bigint', nullable: true, transformer: millis })
  dispatchedAt!: number | null;

  @Column({ name: 'accepted_at', type: 'bigint', nullable: true, transformer: millis })
  acceptedAt!: number | null;

  @Column({ name: 'started_at', type: 'bigint', nullable: true, transformer: millis })
  startedAt!: number | null;

  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: millis })
  finishedAt!: number | null;

  /** Whose clock stamped finished_at (runs.finished_clock); null in attempts kept before migration 1799300000000. */
  @Column({ name: 'finished_clock', type: 'varchar', length: 8, nullable: true })
  finishedClock!: TimelineClock | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** When the engine ended it (engine clock). */
  @Column({ name: 'ended_at', type: 'bigint', transformer: millis })
  endedAt!: number;
}
