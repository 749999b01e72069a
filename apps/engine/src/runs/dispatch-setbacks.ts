import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { deferRunDispatch, inTransaction, rerouteDispatchedRun, returnRefusedRun } from '@baton/persistence';
import { Alarms } from '../alarms/alarms';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { dispatchBackoffMs } from '../common/dispatch-backoff';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { RunOutcomes, type AttemptRef } from './run-outcomes';

/** The states a run can be in while this node dispatches it. */
export type DispatchingState = 'CLAIMED' | 'DISPATCHED';

/**
 * What becomes of a run whose dispatch did not go through — each a guarded write on
 * `claimed_by = this node`, so a run taken over meanwhile is left to its new owner:
 *
 * - `keepInHand`: back to CLAIMED, still this node's, when every executor asked was busy (429);
 * - `defer`: back to RETRY_WAIT after the dispatch backoff, same attempt and instant (no executor UP,
 *   every executor busy or unreachable, an engine error), with a DISPATCH_REJECTED alarm when
 *   some executor refused it outright;
 * - `fail`: a failed attempt, which the task's retry policy settles (RunOutcomes): every executor
 *   rejected it, or a broadcast shard's executor is gone;
 * - `reroute`: still DISPATCHED, re-pointed at the next candidate executor before it is asked.
 */
@Injectable()
export class DispatchSetbacks {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly alarms: Alarms,
    private readonly outcomes: RunOutcomes,
  ) {}

  /** RETRY_WAIT after the dispatch backoff, same attempt, same instant (the back-off delays its next send, not its start); `rejection` (what refused it) raises DISPATCH_REJECTED; `executorId` keeps the run pointed at an executor that may have started it. */
  async defer(run: ClaimedRun, from: readonly DispatchingState[], reason: string, options: { rejection?: string | null; executorId?: number | null } = {}): Promise<void> {
    const now = this.clock.now();
    const delay = dispatchBackoffMs(now - run.instant, Math.random);
    await inTransaction(this.dataSource, async (em) => {
      const deferred = await deferRunDispatch(em, {
        runId: run.runId,
        attempt: run.attempt,
        nodeId: this.config.nodeId,
        from,
        dueAt: now + delay,
        executorId: options.executorId ?? null,
        error: `Dispatch deferred by ${delay} ms: ${reason}`.slice(0, 10_000),
        now,
      });
      if (!deferred || !options.rejection) return;
      await this.alarms.raise(em, {
        tenantId: run.tenantId,
        type: 'DISPATCH_REJECTED',
        severity: 'WARNING',
        taskId: run.taskId,
        runId: run.runId,
        message: `Task ${run.taskName}: run ${run.runId} attempt ${run.attempt} was rejected by executor(s): ${options.rejection} — dispatch retried in ${delay} ms`,
        now,
      });
    });
  }

  /** DISPATCHED → CLAIMED: every executor asked answered busy, and this node holds the run until one has room (returnRefusedRun); false when it is not this node's any more. */
  keepInHand(run: ClaimedRun): Promise<boolean> {
    return returnRefusedRun(this.dataSource.manager, { runId: run.runId, attempt: run.attempt, nodeId: this.config.nodeId, now: this.clock.now() });
  }

  /** A failed attempt (retried or ended per the task's policy), with the standard alarms or DISPATCH_REJECTED. */
  async fail(run: ClaimedRun, from: DispatchingState, error: string, alarm: 'STANDARD' | 'DISPATCH_REJECTED' = 'STANDARD'): Promise<void> {
    const now = this.clock.now();
    await followUpTransaction(this.dataSource, (em) =>
      this.outcomes.endAttempt(em, attemptOf(run), { to: 'FAILED', error }, {
        from: [from],
        claimedBy: this.config.nodeId,
        now,
        alarm: alarm === 'STANDARD' ? 'STANDARD' : { type: alarm },
      }),
    );
  }

  /** DISPATCHED, re-pointed at `executorId` with a fresh deadline; false when the run is not this node's to send any more (it ended meanwhile). */
  reroute(run: ClaimedRun, executorId: number): Promise<boolean> {
    const now = this.clock.now();
    return inTransaction(this.dataSource, (em) =>
      rerouteDispatchedRun(em, { runId: run.runId, attempt: run.attempt, nodeId: this.config.nodeId, executorId, now, deadlineAt: now + run.timeoutMs }),
    );
  }
}

function attemptOf(run: ClaimedRun): AttemptRef {
  return {
    runId: run.runId,
    tenantId: run.tenantId,
    taskId: run.taskId,
    taskName: run.taskName,
    attempt: run.attempt,
    instant: run.instant,
    flowId: run.flowId,
    retry: run.retry,
    executorId: run.executorId,
    shardOf: run.shard?.parentRunId ?? null,
  };
}
