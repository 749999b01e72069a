import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, HANDED_BACK, type Clock } from '@baton/domain';
import { bumpExecutorHandBacks, findSentAheadHeldBy } from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { executorSentAheadLeaseMs } from '../executors/heartbeat-interval';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { RunOutcomes } from '../runs/run-outcomes';

/** The first executor protocol whose executors keep the sent-ahead lease (and honour the ack's `handBacks`). */
export const KEEPS_SENT_AHEAD_LEASE_FROM = 3;

/**
 * Added to the lease: the engines' clocks (each corrected to the database's, ClockWatch, to within
 * tens of ms) wrote the heartbeat time and the instant; this keeps a run due at the lease's very
 * end among those that may have started.
 */
export const HAND_BACK_MARGIN_MS = 500;

/** Runs handed back per statement; an executor's whole queue is handed back in pages of it. */
const PAGE = 200;

/**
 * The runs sent ahead to an executor that went silent, which it provably never started: dispatched
 * again (each attempt handed back, RunOutcomes: attempt + 1, due now, its instant kept, not
 * counted against the task's retries), instead of failing after the DOWN grace.
 *
 * Why they never started: an executor of protocol 3 starts a run it holds only if the last
 * heartbeat an engine answered left no more than the sent-ahead lease (2 × the heartbeat interval)
 * before the run's instant (docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact"). Every
 * heartbeat an engine answered is in the executor row's heartbeat_at (never moved back), so a
 * run whose instant comes more than the lease after heartbeat_at was never started — unless a later
 * heartbeat's ack made the executor's contact fresh again. The hand-back count fences that off:
 * it is moved first (bumpExecutorHandBacks, committed on its own, under the row's lock), and every
 * ack of a heartbeat written after it tells the executor to drop what it holds for later instants;
 * the runs are read after it commits, with the heartbeat_at of then. Only ACCEPTED runs (the
 * executor had them before that read) of an executor still DOWN are taken.
 *
 * The runs whose instants come within the lease may have started (an executor cut off from the
 * engines, not dead, starts those): they wait out the DOWN grace as before (Watchdog.reconcile).
 */
@Injectable()
export class SentAheadHandBacks {
  private readonly logger = new Logger('SentAheadHandBacks');
  /** How far after an executor's last heartbeat a run's instant must come to be handed back. */
  readonly beyondMs: number;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outcomes: RunOutcomes,
  ) {
    this.beyondMs = executorSentAheadLeaseMs(config.executorDeadAfterMs) + HAND_BACK_MARGIN_MS;
  }

  /** Hands back what the silent executor provably never started; how many runs went back. */
  async handBack(executor: { id: number; tenantId: string }): Promise<number> {
    const query = { tenantId: executor.tenantId, executorId: executor.id, minProtocol: KEEPS_SENT_AHEAD_LEASE_FROM, leaseMs: this.beyondMs };
    // Most DOWN executors held nothing sent ahead: the fence is moved only when there is something to hand back.
    if ((await findSentAheadHeldBy(this.dataSource.manager, { ...query, limit: 1 })).length === 0) return 0;
    // Committed (autocommitted) before the runs are read: see the class comment.
    const fenced = await bumpExecutorHandBacks(this.dataSource.manager, { executorId: executor.id, minProtocol: KEEPS_SENT_AHEAD_LEASE_FROM });
    if (!fenced) return 0;
    let handed = 0;
    for (;;) {
      const rows = await findSentAheadHeldBy(this.dataSource.manager, { ...query, limit: PAGE });
      let moved = 0;
      for (const run of rows) {
        const why = `handed back: sent ahead to executor ${run.executorUrl ?? run.executorId} to start at ${new Date(run.instant).toISOString()}, which went silent more than its sent-ahead lease before that instant, so it never started it`;
        try {
          const ended = await followUpTransaction(this.dataSource, (em) => this.outcomes.endAttempt(em, run, { to: HANDED_BACK, error: why }, { from: ['ACCEPTED'], now: this.clock.now() }));
          if (ended) moved++;
        } catch (err) {
          this.logger.error(`hand-back of a run sent ahead failed: ${(err as Error).message}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
        }
      }
      handed += moved;
      // A page that moved nothing (another engine took them, or they failed) is not read again now: the reconciliation comes back to it.
      if (rows.length < PAGE || moved === 0) return handed;
    }
  }
}
