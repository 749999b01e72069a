import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { cancelExecutingRun, findExecutingRunsOfTask, lockTaskForConcurrency, markRunsDispatched, skipClaimedRun, type ExecutingRunRow } from '@baton/persistence';
import type { ClaimedRun } from '../claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import type { RoutedExecutor } from '../executors/executor-registry';
import { FollowUps, followUpTransaction } from '../follow-ups/follow-ups';
import { DispatchMarks } from './dispatch-marks';

/** How a run's start went: DISPATCHED (with the runs REPLACE cancelled, to abort), SKIPPED by FORBID, or LOST (not this node's any more). */
export type Start = { kind: 'DISPATCHED'; at: number; replaced: ExecutingRunRow[] } | { kind: 'SKIPPED' } | { kind: 'LOST' };

class LostRun extends Error {}

/**
 * A run's start, before its POST: the task's concurrency policy and CLAIMED → DISPATCHED in one
 * transaction. FORBID / REPLACE lock the task row and look for its other executing runs: FORBID
 * skips this run, REPLACE cancels them. Guarded on `claimed_by = this node`: a run taken over
 * meanwhile is not sent. An ALLOW run — most runs — has no policy to apply: its mark joins the
 * other slots' (DispatchMarks), in a batch of its own when it is on time.
 */
@Injectable()
export class RunStart {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly followUps: FollowUps,
    private readonly marks: DispatchMarks,
  ) {}

  async start(run: ClaimedRun, first: RoutedExecutor, onTime: boolean): Promise<Start> {
    if (run.concurrencyPolicy === 'ALLOW') {
      const at = await this.marks.markDispatched(run, first.executorId, onTime);
      return at === null ? { kind: 'LOST' } : { kind: 'DISPATCHED', at, replaced: [] };
    }
    const now = this.clock.now();
    try {
      return await followUpTransaction(this.dataSource, async (em): Promise<Start> => {
        const replaced: ExecutingRunRow[] = [];
        await lockTaskForConcurrency(em, run.taskId);
        const others = await findExecutingRunsOfTask(em, run.taskId, run.runId);
        if (others.length > 0 && run.concurrencyPolicy === 'FORBID') {
          const skipped = await skipClaimedRun(em, {
            runId: run.runId,
            attempt: run.attempt,
            nodeId: this.config.nodeId,
            reason: `Skipped: run ${others[0].runId} of this task is still running (concurrency FORBID)`,
            now,
          });
          if (!skipped) return { kind: 'LOST' };
          await this.followUps.afterRunEnded(em, { runId: run.runId, tenantId: run.tenantId, taskId: run.taskId, flowId: run.flowId }, 'SKIPPED', now);
          return { kind: 'SKIPPED' };
        }
        for (const other of others) {
          const reason = `Cancelled: replaced by run ${run.runId} (concurrency REPLACE)`;
          if (await cancelExecutingRun(em, { runId: other.runId, attempt: other.attempt, reason, now })) replaced.push(other);
        }
        const dispatched = await markRunsDispatched(em, {
          nodeId: this.config.nodeId,
          now,
          runs: [{ runId: run.runId, attempt: run.attempt, executorId: first.executorId, deadlineAt: now + run.timeoutMs }],
        });
        if (dispatched.size === 0) throw new LostRun(); // not ours any more: undo the REPLACE cancellations too
        return { kind: 'DISPATCHED', at: now, replaced };
      });
    } catch (err) {
      if (err instanceof LostRun) return { kind: 'LOST' };
      throw err;
    }
  }
}
