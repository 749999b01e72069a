import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, rewindForWithdrawn, type Clock, type WithdrawalSettled } from '@baton/domain';
import { findUnsettledWithdrawal, inTransaction, lockTask, recordRanWithdrawnFire, setFireCursors, settledWithdrawalError, settleWithdrawal } from '@baton/persistence';

/**
 * Withdrawn prepared fires that an engine may have sent (runs.withdrawal UNSETTLED, domain
 * WithdrawalState), settled once by whichever word comes first: the abort's answer
 * (CancelledRuns), a callback of the attempt (CallbacksService, any engine), or the watchdog's
 * sweep. Not started: the instant is given back to its task's schedule (rewindForWithdrawn, as
 * the console gives back a withdrawn fire no executor had) — whether the task runs or is paused:
 * a paused task keeps it in its cursor, and its resume replays it under the misfire policy, as it
 * does the instants its pause gave back. Started (or unknown): the instant ran as prepared, and
 * nothing is planned again — a second fire of an instant is what the wait is for.
 *
 * One transaction: the task's row locked first (the console's save locks the task, then its
 * runs; the same order here cannot deadlock), then the guarded settle, then the rewind.
 */
@Injectable()
export class WithdrawnFires {
  private readonly logger = new Logger('WithdrawnFires');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Settles the run's withdrawal if it is still unsettled at this attempt; whether this call did.
   * `report`: the start and end its executor reported, if any — taken for a fire that ran, also
   * once it is settled (recordRanWithdrawnFire), so its timeline shows its run.
   */
  async settle(tenantId: string, runId: number, attempt: number, settled: WithdrawalSettled, report: { startedAt?: number; finishedAt?: number } = {}): Promise<boolean> {
    const fire = await findUnsettledWithdrawal(this.dataSource.manager, { runId, tenantId });
    const ran = settled !== 'NOT_STARTED' && (report.startedAt !== undefined || report.finishedAt !== undefined);
    if (!fire) {
      // Settled as run already (an abort's RUNNING answer settles it with no times): its outcome brings its start and end.
      if (ran) await recordRanWithdrawnFire(this.dataSource.manager, { runId, tenantId, attempt, startedAt: report.startedAt ?? null, endedAt: report.finishedAt ?? null, now: this.clock.now() });
      return false;
    }
    if (fire.attempt !== attempt) return false;
    const done = await inTransaction(this.dataSource, async (em) => {
      const task = await lockTask(em, tenantId, fire.taskId);
      const now = this.clock.now();
      const error = settledWithdrawalError(fire.error, settled);
      // Dropped unstarted: the executor's drop time is no end of the run (it ended at its withdrawal).
      const times = ran ? { startedAt: report.startedAt, endedAt: report.finishedAt } : {};
      const moved = await settleWithdrawal(em, { runId, tenantId, attempt, settled, error, ...times, now });
      if (moved && settled === 'NOT_STARTED' && task) await setFireCursors(em, { tenantId, cursors: [{ taskId: task.id, ...rewindForWithdrawn(task, [fire.scheduledAt]) }] });
      return moved;
    });
    if (done) this.logger.log(`withdrawn run ${runId} settled ${settled}${settled === 'NOT_STARTED' ? ': its instant is planned again' : ': its instant ran as prepared'}`, { tenantId, runId });
    return done;
  }

  /** settle, never throwing (a failure leaves it unsettled: the next word, or the sweep, settles it). */
  settleQuietly(tenantId: string, runId: number, attempt: number, settled: WithdrawalSettled, report: { startedAt?: number; finishedAt?: number } = {}): Promise<boolean> {
    return this.settle(tenantId, runId, attempt, settled, report).catch((err: Error) => {
      this.logger.warn(`settling withdrawn run ${runId} failed (settled later): ${err.message}`, { tenantId, runId });
      return false;
    });
  }
}
