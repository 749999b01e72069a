import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock, type ShardPlan } from '@baton/domain';
import {
  cancelExecutingRun,
  cancelShards,
  findExecutingRunsOfTask,
  insertShardRuns,
  lockTaskForConcurrency,
  markRunsDispatched,
  skipClaimedRun,
  startFanOutRun,
  type ExecutingRunRow,
  type FanOutParent,
} from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';
import { RecentCancels } from '../common/recent-cancels';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { FollowUps, followUpTransaction } from '../follow-ups/follow-ups';
import { DispatchMarks } from './dispatch-marks';
import { DispatchSetbacks } from './dispatch-setbacks';
import { LostRunError } from './lost-run-error';

/**
 * How long after its console wrote it DISPATCHED (ClaimedRun.markedAt) a run sent to the executor
 * named there needs no mark: its deadline counts from that write, and a run that waited longer for
 * a slot or for room has its dispatched_at and deadline written anew (a reroute of its row).
 */
export const MARK_FRESH_MS = 1_000;

/**
 * How a run's start went: DISPATCHED (sent next) or FANNED_OUT (its shards written), with the runs
 * REPLACE cancelled, to abort; SKIPPED by FORBID; or LOST (not this node's any more).
 */
export type Start =
  | { kind: 'DISPATCHED' | 'FANNED_OUT'; at: number; replaced: ExecutingRunRow[] }
  | { kind: 'SKIPPED' }
  | { kind: 'LOST' };

/**
 * What starting the run means: marking it DISPATCHED to its first executor (`sendAt`: the instant
 * its POST leaves, when the on-time lane starts it ahead of it; `startAt`: the instant its executor
 * starts it, when it is sent ahead of it), or writing its shards.
 */
export type Begin = { kind: 'SEND'; executorId: number; sendAt?: number; startAt?: number } | { kind: 'FAN_OUT'; shards: readonly ShardPlan[] };

/**
 * A run's start, before its POST (or instead of it, for a fan-out run): the task's concurrency
 * policy and the start's own write in one transaction. FORBID / REPLACE lock the task row and
 * look for its other executing runs: FORBID skips this run, REPLACE cancels them (a fan-out run
 * with its shards). Then CLAIMED → DISPATCHED, or — a fan-out run — CLAIMED → ACCEPTED and its
 * shards inserted. Guarded on `claimed_by = this node`: a run taken over meanwhile is not
 * started. An ALLOW run that is sent — most runs — has no policy to apply: its mark joins the
 * other slots' (DispatchMarks), in a batch of its own when it is on time. So does a shard: the
 * policy was applied once, to its fan-out run.
 */
@Injectable()
export class RunStart {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly followUps: FollowUps,
    private readonly marks: DispatchMarks,
    private readonly setbacks: DispatchSetbacks,
    private readonly cancels: RecentCancels,
  ) {}

  async start(run: ClaimedRun, begin: Begin, onTime: boolean): Promise<Start> {
    if (begin.kind === 'SEND' && run.markedAt !== undefined) return this.startMarked(run, run.markedAt, begin.executorId);
    if (begin.kind === 'SEND' && (run.concurrencyPolicy === 'ALLOW' || run.shard !== null)) {
      const at = await this.marks.markDispatched(run, begin.executorId, onTime, begin.sendAt, begin.startAt);
      return at === null ? { kind: 'LOST' } : { kind: 'DISPATCHED', at, replaced: [] };
    }
    const now = this.clock.now();
    try {
      return await followUpTransaction(this.dataSource, async (em): Promise<Start> => {
        let replaced: ExecutingRunRow[] = [];
        if (run.concurrencyPolicy !== 'ALLOW') {
          await lockTaskForConcurrency(em, run.taskId);
          const others = await findExecutingRunsOfTask(em, run.taskId, run.runId);
          if (others.length > 0 && run.concurrencyPolicy === 'FORBID') return this.skip(em, run, others[0].runId, now);
          replaced = await this.replace(em, run, others, now);
        }
        if (begin.kind === 'FAN_OUT') {
          // The run's row first: its lock is what the shards' engine group is read under (insertShardRuns).
          if (!(await startFanOutRun(em, { runId: run.runId, attempt: run.attempt, nodeId: this.config.nodeId, shardTotal: begin.shards.length, now }))) throw new LostRunError();
          await insertShardRuns(em, { parent: fanOutParentOf(run), shards: begin.shards, now });
          return { kind: 'FANNED_OUT', at: now, replaced };
        }
        const dispatched = await markRunsDispatched(em, {
          nodeId: this.config.nodeId,
          now,
          runs: [{ runId: run.runId, attempt: run.attempt, executorId: begin.executorId, deadlineAt: now + run.timeoutMs }],
        });
        if (dispatched.size === 0) throw new LostRunError(); // not ours any more: undo the REPLACE cancellations too
        return { kind: 'DISPATCHED', at: now, replaced };
      });
    } catch (err) {
      if (err instanceof LostRunError) return { kind: 'LOST' };
      throw err;
    }
  }

  /**
   * A run written already sent (DirectStarts): to the executor its console named, within
   * MARK_FRESH_MS of that write, there is nothing to write; to another one, or later, its row is
   * re-pointed there with a fresh deadline (DispatchSetbacks.reroute, guarded on its owner and
   * attempt: LOST when it is not this node's to send any more — cancelled meanwhile). One the
   * console has said it cancelled is not sent (RecentCancels).
   */
  private async startMarked(run: ClaimedRun, markedAt: number, executorId: number): Promise<Start> {
    if (this.cancels.has(run.runId)) return { kind: 'LOST' };
    if (executorId === run.executorId && this.clock.now() - markedAt <= MARK_FRESH_MS) return { kind: 'DISPATCHED', at: markedAt, replaced: [] };
    return (await this.setbacks.reroute(run, executorId)) ? { kind: 'DISPATCHED', at: this.clock.now(), replaced: [] } : { kind: 'LOST' };
  }

  private async skip(em: EntityManager, run: ClaimedRun, runningId: number, now: number): Promise<Start> {
    const skipped = await skipClaimedRun(em, {
      runId: run.runId,
      attempt: run.attempt,
      nodeId: this.config.nodeId,
      reason: `Skipped: run ${runningId} of this task is still running (concurrency FORBID)`,
      now,
    });
    if (!skipped) throw new LostRunError();
    await this.followUps.afterRunEnded(em, { runId: run.runId, tenantId: run.tenantId, taskId: run.taskId, flowId: run.flowId }, 'SKIPPED', now);
    return { kind: 'SKIPPED' };
  }

  /**
   * REPLACE: the task's executing runs are cancelled. A fan-out run's live shards go first
   * (cancelShards), and only then the runs themselves: a shard ending meanwhile locks its own row
   * before its fan-out run's (standOfFanOut), so taking them in the same order cannot deadlock.
   */
  private async replace(em: EntityManager, run: ClaimedRun, others: readonly ExecutingRunRow[], now: number): Promise<ExecutingRunRow[]> {
    const reason = `Cancelled: replaced by run ${run.runId} (concurrency REPLACE)`;
    const shards = await cancelShards(em, { parentRunIds: others.filter((o) => o.fanOut).map((o) => o.runId), reason, now });
    const aborted = new Set(shards.map((s) => s.runId));
    const replaced: ExecutingRunRow[] = [];
    for (const other of others) {
      // A fan-out run's executorUrl is null: it is cancelled, and nothing is asked to abort it.
      if (aborted.has(other.runId) || (await cancelExecutingRun(em, { runId: other.runId, attempt: other.attempt, reason, now }))) replaced.push(other);
    }
    return replaced;
  }
}

/** The fan-out run as insertShardRuns needs it: what every shard inherits. */
function fanOutParentOf(run: ClaimedRun): FanOutParent {
  return {
    runId: run.runId,
    tenantId: run.tenantId,
    taskId: run.taskId,
    priority: run.priority,
    paramsJson: JSON.stringify(run.params ?? null),
    parentResults: run.parentResults ?? null,
    flowParams: run.flowParams ?? null,
    traceParent: run.traceParent ?? null,
  };
}
