import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EARLY_START_TOLERANCE_MS, startedEarlyBy } from '@baton/domain';
import { inTransaction, type RunAttemptRow } from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import { Alarms } from '../alarms/alarms';
import { EngineMetrics } from '../metrics/engine-metrics';

/**
 * A run never starts before its instant (issue 39): when an outcome callback says the handler
 * started more than EARLY_START_TOLERANCE_MS before it, that is a defect — a re-send that lost the
 * instant, an executor or engine clock off — and it is recorded as one: counted
 * (baton_engine_runs_started_early_total, and how early in baton_engine_start_earliness_seconds),
 * logged, and a RUN_STARTED_EARLY alarm raised on the run, naming its executor (repeats within the
 * task's silence window count into one open alarm, as any alarm's). After the run's end is committed, in a
 * transaction of its own: recording it never holds up or undoes the outcome.
 */
@Injectable()
export class EarlyStarts {
  private readonly logger = new Logger('EarlyStarts');

  constructor(
    private readonly dataSource: DataSource,
    private readonly alarms: Alarms,
    private readonly metrics: EngineMetrics,
  ) {}

  /** Records the attempt's start if it was early; `startedAt` as the callback reported it. */
  async check(run: RunAttemptRow, startedAt: number | null, now: number): Promise<void> {
    const early = startedEarlyBy(run.instant, startedAt);
    if (early === null) return;
    this.metrics.runsStartedEarly.inc();
    this.metrics.earliness.observe(early / 1000);
    // Its start is on the executor's clock: one behind the database's is the usual cause, so the alarm says where to look.
    const executor = run.executorUrl ?? (run.executorId !== null ? `#${run.executorId}` : 'unknown');
    const message = `Task ${run.taskName}: run ${run.runId} attempt ${run.attempt} started ${early} ms before its instant ${new Date(run.instant).toISOString()} (tolerance ${EARLY_START_TOLERANCE_MS} ms) on executor ${executor}: check that executor's clock (NTP)`;
    this.logger.warn(message, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
    await inTransaction(this.dataSource, (em) =>
      this.alarms.raise(em, {
        tenantId: run.tenantId,
        type: 'RUN_STARTED_EARLY',
        severity: 'WARNING',
        taskId: run.taskId,
        runId: run.runId,
        executorId: run.executorId,
        message,
        data: { attempt: run.attempt, instant: run.instant, startedAt, earlyMs: early },
        // Raised whatever types the task chose: a defect of the platform, not an outcome the task opts into.
        alarmTypes: null,
        now,
      }),
    ).catch((err: Error) => this.logger.warn(`RUN_STARTED_EARLY not raised: ${err.message}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) }));
  }
}
