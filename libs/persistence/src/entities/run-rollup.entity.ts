import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * Statistics of the runs that ended in one minute or one hour, for one task or (task 0) the
 * whole tenant: what the statistics page and API read instead of the runs (issue 13 item 2).
 * Recomputed whole from the runs by the engines' history job, never incremented
 * (libs/domain stats/run-rollup.ts has the arithmetic; histograms are its text form).
 */
@Entity({ name: 'run_rollups' })
// Their own retention: "buckets of tenant T at span S older than X", every task at once.
@Index('ix_run_rollups_age', ['tenantId', 'spanMs', 'bucketStart'])
export class RunRollupEntity {
  // The key is also the read path: "tenant T, task X (0 = all), span S, buckets from A to B".
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** 0: every task of the tenant. */
  @PrimaryColumn({ name: 'task_id', type: 'int' })
  taskId!: number;

  /** 60 000 (a minute) or 3 600 000 (an hour). */
  @PrimaryColumn({ name: 'span_ms', type: 'int' })
  spanMs!: number;

  /** Start of the bucket, epoch ms, a multiple of spanMs. */
  @PrimaryColumn({ name: 'bucket_start', type: 'bigint', transformer: millis })
  bucketStart!: number;

  @Column({ type: 'int' })
  succeeded!: number;

  @Column({ type: 'int' })
  failed!: number;

  @Column({ name: 'timed_out', type: 'int' })
  timedOut!: number;

  @Column({ type: 'int' })
  cancelled!: number;

  @Column({ type: 'int' })
  skipped!: number;

  /** Runs whose last attempt started more than EARLY_START_TOLERANCE_MS (20 ms) before its instant (a defect, issue 39). */
  @Column({ name: 'early_starts', type: 'int', default: 0 })
  earlyStarts!: number;

  /** finished − started, libs/domain histogram text. */
  @Column({ name: 'duration_hist', type: 'text' })
  durationHist!: string;

  /** First attempts: scheduled → dispatched (a run sent ahead: its instant, or when it left if later). */
  @Column({ name: 'lateness_hist', type: 'text' })
  latenessHist!: string;

  /** Retried runs: scheduled → due of the last attempt (the backoffs). */
  @Column({ name: 'retry_wait_hist', type: 'text' })
  retryWaitHist!: string;
}
