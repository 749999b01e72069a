import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintId, millis } from './columns';

/**
 * The final report (outcome callback) of an attempt Baton ended itself — cancelled, or timed out
 * by its watchdog — or ended TIMED_OUT by that report (the executor aborted on its deadline), once
 * taken (migration 1799400000430). The report of such an attempt is refused (409) but leaves its
 * start and the handler's last log lines (takeAttemptReport); an executor sends a callback again
 * when its answer was lost, and this row is what makes the second copy leave nothing.
 */
@Entity({ name: 'run_attempt_reports' })
export class RunAttemptReportEntity {
  @PrimaryColumn({ name: 'run_id', type: 'bigint', transformer: bigintId })
  runId!: number;

  @PrimaryColumn({ type: 'int' })
  attempt!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** When an engine took it (engine clock). */
  @Column({ name: 'taken_at', type: 'bigint', transformer: millis })
  takenAt!: number;
}
