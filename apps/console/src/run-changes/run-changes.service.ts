import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES, type RunState } from '@baton/domain';
import type { RunWakeups } from '@baton/messaging';
import {
  cancelBackfillRuns,
  cancelRun,
  cancelShards,
  cancelTaskRuns,
  continueFixedDelayChain,
  findFixedDelaySchedule,
  findRun,
  findRunApproval,
  markBackfillsCancelled,
  type RunApprovalEntity,
  type RunEntity,
  withdrawPreparedFires,
  type WithdrawnFire,
} from '@baton/persistence';
import { ApiError, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { abortAtExecutorsAfterCommit } from './cancel-notices';

/**
 * The console's one door for moving runs between states, as apps/engine/src/runs is the engine's:
 * a user's cancels (a run, a deleted task's runs, a task's backfills) and the withdrawal of the
 * fires a pause or an edit outdates. Each change is made in the caller's transaction (`em`), with
 * what follows it: the engines are told, once it commits, to abort at their executors the runs
 * they may have sent (cancel-notices.ts). New runs (a trigger, a re-run, a backfill) are not moves
 * and are written by their requests; the engine makes every other move.
 */
@Injectable()
export class RunChangesService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
  ) {}

  /**
   * Cancels a run that is not over yet (cancelRun: one guarded update); else 409 naming its state.
   * A fan-out run takes its live shards with it — cancelled first, as the engines lock a shard
   * before its fan-out run. A shard alone is refused: its fan-out run would wait for it forever,
   * and the engines, not the console, end a fan-out run. A FIXED_DELAY task's scheduled run
   * cancelled ends its chain's link as any other end does: its next fire is placed a delay from
   * now (the engine would place it at the run's end, which will not come now). `row` as read in
   * the transaction; returns the run before. A refusal writes nothing.
   */
  async cancelOne(em: EntityManager, tenantId: string, id: number, row: RunEntity | undefined): Promise<RunEntity> {
    const { before, maybeSent } = await this.cancelUnnoticed(em, tenantId, id, row);
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, maybeSent);
    return before;
  }

  /**
   * cancelOne for each id, in order, in one transaction: each its run before, or the ApiError
   * that refused it (which does not undo the others). The engines hear of the sent ones in one
   * notice per engine group.
   */
  async cancelEach(em: EntityManager, tenantId: string, ids: readonly number[], runs: ReadonlyMap<number, RunEntity>): Promise<Array<RunEntity | ApiError>> {
    const outcomes: Array<RunEntity | ApiError> = [];
    const sent: SentRun[] = [];
    for (const id of ids) {
      try {
        const { before, maybeSent } = await this.cancelUnnoticed(em, tenantId, id, runs.get(id));
        sent.push(...maybeSent);
        outcomes.push(before);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        outcomes.push(error);
      }
    }
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, sent);
    return outcomes;
  }

  /**
   * A task's removal: its active runs cancelled (the run lifecycle's cancel, here and only here
   * for a task; the engines abort at their executors those they may have sent, once it commits).
   * Returns how many runs it cancelled.
   */
  async cancelAllOfTask(em: EntityManager, tenantId: string, taskId: number): Promise<number> {
    const runs = await cancelTaskRuns(em, { taskId, tenantId, now: this.clock.now() });
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, runs.maybeSent);
    return runs.cancelled;
  }

  /**
   * Stops a task's backfills: one being written writes no more (markBackfillsCancelled, first, so
   * a slice being written commits before its runs are cancelled), and their runs not sent yet end
   * CANCELLED. Returns how many runs it cancelled, or null when the tenant has no such task.
   */
  async stopBackfills(em: EntityManager, tenantId: string, taskId: number): Promise<number | null> {
    if (!(await markBackfillsCancelled(em, { taskId, tenantId }))) return null;
    return cancelBackfillRuns(em, { taskId, tenantId, now: this.clock.now() });
  }

  /** Prepared fires of the tasks due after `after` withdrawn (withdrawPreparedFires); the engines abort those they sent once the transaction commits. */
  async withdrawFires(em: EntityManager, tenantId: string, taskIds: readonly number[], after: number, error: string): Promise<WithdrawnFire[]> {
    const withdrawn = await withdrawPreparedFires(em, { tenantId, taskIds, after, now: this.clock.now(), error });
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, withdrawn.filter((f) => f.mayBeSent));
    return withdrawn;
  }

  /**
   * cancelOne without telling the engines (the caller does, once for all its cancels): the run
   * before, and what it cancelled that an engine may have sent — the run, and a fan-out run's
   * shards that were at their executors (the fan-out run itself never is).
   */
  private async cancelUnnoticed(em: EntityManager, tenantId: string, id: number, row: RunEntity | undefined): Promise<{ before: RunEntity; maybeSent: SentRun[] }> {
    if (!row) throw notFound('Run', id);
    if (!isActive(row.state)) throw notActive(id, row.state);
    if (row.cause === 'SHARD') {
      throw conflict(`Run ${id} is shard ${row.shardIndex} of run ${row.parentRunId}: cancel run ${row.parentRunId}, which cancels its shards`, [
        { field: 'cause', reason: `is SHARD: a shard is cancelled with its fan-out run ${row.parentRunId}` },
      ]);
    }
    const now = this.clock.now();
    const shards = row.shardTotal === null ? [] : await cancelShards(em, { parentRunIds: [id], reason: `Cancelled with its fan-out run ${id}`, now });
    const moved = await cancelRun(em, { runId: id, tenantId, now });
    if (!moved) {
      const current = await findRun(em, tenantId, id);
      // Still waiting: cancelRun's guard kept a run whose rejection is decided (see rejectionUnderWay).
      if (current?.state === 'APPROVAL_WAIT') throw rejectionUnderWay(id, await findRunApproval(em, tenantId, id));
      throw notActive(id, current?.state ?? row.state);
    }
    if (row.cause === 'SCHEDULE') {
      const fixedDelay = await findFixedDelaySchedule(em, row.taskId);
      if (fixedDelay) await continueFixedDelayChain(em, row.taskId, fixedDelay, now);
    }
    const maybeSent = [...(wasSent(row) ? [row.id] : []), ...shards.map((s) => s.runId)].map((runId) => ({ runId, engineGroup: row.engineGroup }));
    return { before: row, maybeSent };
  }
}

/** A cancelled run an engine may have sent to an executor: the engines of its group are told to abort it. */
type SentRun = { runId: number; engineGroup: string };

/** Whether a run is not over yet (one of ACTIVE_STATES). */
export function isActive(state: RunState): boolean {
  return (ACTIVE_STATES as readonly RunState[]).includes(state);
}

function notActive(id: number, state: RunState): ApiError {
  return conflict(`Run ${id} is ${state}: only an active run can be cancelled`, [{ field: 'state', reason: `is ${state}, not one of ${ACTIVE_STATES.join(', ')}` }]);
}

/**
 * A waiting run already rejected — by a person, or by its deadline before an engine recorded it —
 * is refused a cancel: the run no longer waits for anyone, and the decision must end it as the
 * manual says (FAILED, its alarm, its ON_FAILURE children), which a CANCELLED would silently skip.
 * The engines carry it out at their next watchdog tick.
 */
function rejectionUnderWay(id: number, approval: RunApprovalEntity | null): ApiError {
  const by = approval?.decision === 'REJECT' ? `by ${approval.decidedBy ?? 'its deadline'}` : 'by its deadline (onTimeout REJECT)';
  const reason = `is APPROVAL_WAIT, rejected ${by}: the decision is being applied (the run ends FAILED)`;
  return conflict(`Run ${id} was rejected ${by}: the decision is being applied, and the run ends FAILED with its ON_FAILURE children; it cannot be cancelled`, [
    { field: 'state', reason },
  ]);
}

/**
 * A run sent to an executor (DISPATCHED: maybe; ACCEPTED: surely) may be running or waiting there
 * for its instant; so may a waiting one with a sent mark (persistence keepsSentMark: its engine
 * died after sending it, or its dispatch got no answer) — cancelled without an abort, its
 * executor would start it anyway.
 */
function wasSent(run: RunEntity): boolean {
  return run.state === 'DISPATCHED' || run.state === 'ACCEPTED' || run.dispatchedAt !== null || run.executorId !== null;
}
