import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { settledByAbortAnswer } from '@baton/domain';
import type { InProcessWakeups } from '@baton/messaging';
import { findCancelledSentRuns } from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import { RecentCancels } from '../common/recent-cancels';
import { ExecutorClient } from '../executors/executor-client';
import { WithdrawnFires } from './withdrawn-fires';
import { TenantDirectory } from '../tenants/tenant-directory';
import { IN_PROCESS_WAKEUPS } from './in-process-wakeups';

/**
 * The console cancelled runs that had been sent (CancelNotice, or a function call in embedded
 * mode): each one's executor is asked to abort it (reason CANCELLED). A run sent ahead of its
 * instant is dropped there before it starts; a running one gets its signal; its ABORTED callback
 * then finds the run CANCELLED already and is refused as stale. Every engine of the group is told
 * and each sends its abort: an executor answers the second with 404, which costs nothing. A
 * withdrawn prepared fire's answer settles its withdrawal (WithdrawnFires, settledByAbortAnswer):
 * QUEUED gives its instant back to the task's schedule, RUNNING says it ran as prepared.
 */
@Injectable()
export class CancelledRuns {
  private readonly logger = new Logger('CancelledRuns');

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: ExecutorClient,
    private readonly tenants: TenantDirectory,
    private readonly recent: RecentCancels,
    private readonly withdrawn: WithdrawnFires,
    @Optional() @Inject(IN_PROCESS_WAKEUPS) wakeups?: InProcessWakeups,
  ) {
    wakeups?.listenCancelled((cancels) => {
      this.abort(cancels.tenantId, cancels.runIds).catch((err: Error) => this.logger.warn(`aborting cancelled runs failed: ${err.message}`, { tenantId: cancels.tenantId }));
    });
  }

  /** Sends the aborts (not awaited beyond reading the runs: the notice is answered at once). */
  async abort(tenantId: string, runIds: readonly number[]): Promise<void> {
    this.recent.add(runIds);
    const [tenant, runs] = await Promise.all([this.tenants.get(tenantId), findCancelledSentRuns(this.dataSource.manager, { tenantId, runIds })]);
    if (!tenant) return;
    for (const run of runs) {
      void this.client.abortAnswer(run.executorUrl, tenant, { runId: run.runId, attempt: run.attempt, reason: 'CANCELLED' }, run.taskId).then(async (answer) => {
        if (answer === null || answer.status >= 500) this.logger.warn(`abort of a cancelled run at ${run.executorUrl}: ${answer?.status ?? 'no answer'}`, { tenantId, runId: run.runId, ...traceFields(run.traceParent) });
        const settled = run.unsettled ? settledByAbortAnswer(answer) : null;
        if (settled) await this.withdrawn.settleQuietly(tenantId, run.runId, run.attempt, settled);
      });
    }
  }
}
