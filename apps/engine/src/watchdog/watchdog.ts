import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import {
  electLateRuns,
  findLateRuns,
  findRunsForCallback,
  lateFromKind,
  findOrphanedRuns,
  findOverdueRuns,
  findRunsOfOldProcess,
  findSilentExecutors,
  inTransaction,
  markExecutorDown,
  readLeastStartDeadline,
  type LateRunRow,
  type OverdueRunRow,
  type RunAttemptRow,
} from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import { Alarms } from '../alarms/alarms';
import { ExecutorRestarts } from '../common/executor-restarts';
import { NodeLiveness } from '../common/node-liveness';
import { PeriodicLoop } from '../common/periodic-loop';
import { HeldKeysSweep } from './held-keys-sweep';
import { SentAheadHandBacks } from './sent-ahead-hand-backs';
import { WithdrawalsSweep } from './withdrawals-sweep';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { ExecutorClient } from '../executors/executor-client';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { ApprovalDecisions } from '../runs/approval-decisions';
import { FanOutSettler } from '../runs/fan-out-settler';
import { RunOutcomes } from '../runs/run-outcomes';
import { TenantDirectory } from '../tenants/tenant-directory';

/** Rows handled per check per tick; the rest wait for the next tick (bounded work per tick). */
const BATCH = 200;

/** How long before an executor's process start (its clock) an attempt must have been sent to count as the old process's: clocks a little apart. */
const RESTART_MARGIN_MS = 2_000;

/** What one tick did (tests, logs). */
export interface WatchdogReport {
  late: number;
  timedOut: number;
  executorsDown: number;
  reconciled: number;
  /** Fan-out runs whose shards had all ended, looked at again. */
  fanOuts: number;
  /** Runs waiting for approval whose deadline passed, or that a person rejected, carried out. */
  approvals: number;
  /** Held runs given a free place of their key by the sweep (HeldKeysSweep). */
  heldReleased: number;
  /** Withdrawn fires no executor's word settled, settled by the sweep (WithdrawalsSweep). */
  withdrawalsSettled: number;
}

/**
 * Every config.watchdogIntervalMs, for this node's engine groups only:
 *
 * - START_LATE: a run not dispatched (PENDING/CLAIMED/RETRY_WAIT) past its start deadline →
 *   alarm, once per run (runs.late_alarmed_at, set for the tick's late runs by one election, electLateRuns). The
 *   deadline counts from its fire time, a retry's from its own, a run its keys held back (a rate
 *   key's token, a concurrency key's place) from when they let it go (find-late-runs.ts). A run of
 *   a task with onStartLate GIVE_UP that was provably never sent ends FAILED instead, its alarm
 *   saying so (giveUp).
 * - TIMEOUT: a run DISPATCHED/ACCEPTED past deadline_at → TIMED_OUT, or RETRY_WAIT (attempt + 1)
 *   per the retry policy, TIMEOUT alarm, follow-ups; then a signed abort request to its executor.
 * - EXECUTOR_DOWN: an UP executor silent for executorDeadAfterMs → DOWN + alarm; silent while this
 *   node could record its heartbeats (NodeLiveness.recordingSince: not while its database was
 *   down, nor just after), so that an outage of the database does not make every executor DOWN.
 * - Hand-backs: the runs sent ahead to an executor of protocol 3 that went DOWN, whose instants
 *   come past its sent-ahead lease, never started there: dispatched again at once, not counted as
 *   an attempt (SentAheadHandBacks), when it goes DOWN and again at its reconciliation.
 * - Reconciliation: runs still executing on an executor DOWN for longer than executorGraceMs →
 *   RETRY_WAIT (attempt + 1) or FAILED per the retry policy. An executor that comes back in
 *   time and calls back wins: its callback's guarded update ends the attempt first, and this
 *   one then matches nothing. So are the attempts an executor's earlier process took with it, once
 *   its new process's heartbeat says what it holds (lostWithProcess).
 * - Approvals: runs waiting for approval past their deadline, and those a person rejected, are
 *   decided and carried out (ApprovalDecisions).
 * - Held keys (HeldKeysSweep, every 10th tick): free places of concurrency keys go to their held
 *   runs when no callback released them.
 * - Withdrawals (WithdrawalsSweep): withdrawn prepared fires whose executor never said whether it
 *   started them, settled by what can be told without it.
 *
 * Several engines serve a group, so each check is an election: the state change is a guarded
 * update, the alarm row is written in the same transaction only by the one that moved the row.
 * Each event is handled once and alarmed once, however many watchdogs see it.
 *
 * Started and stopped by the node's lifecycle (`start()` / `stop()`), so nothing runs in an
 * engine that was refused (a second engine on SQLite) or has not registered yet.
 */
@Injectable()
export class Watchdog implements OnModuleDestroy {
  private readonly logger = new Logger('Watchdog');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly alarms: Alarms,
    private readonly outcomes: RunOutcomes,
    private readonly heldKeys: HeldKeysSweep,
    private readonly client: ExecutorClient,
    private readonly tenants: TenantDirectory,
    private readonly fanOuts: FanOutSettler,
    private readonly approvals: ApprovalDecisions,
    private readonly restarts: ExecutorRestarts,
    private readonly handBacks: SentAheadHandBacks,
    private readonly withdrawals: WithdrawalsSweep,
    private readonly liveness: NodeLiveness,
  ) {
    this.loop = new PeriodicLoop('watchdog', Math.max(50, config.watchdogIntervalMs), async () => void (await this.tick()), this.logger);
  }

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  start(): void {
    this.loop.start(this.config.watchdogIntervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** One pass of every check. */
  async tick(): Promise<WatchdogReport> {
    const late = await this.startLate();
    const timedOut = await this.timeouts();
    const executorsDown = await this.executorsDown();
    const reconciled = (await this.reconcile()) + (await this.lostWithProcess());
    const fanOuts = await this.fanOuts.sweep();
    const approvals = await this.approvals.sweep();
    const heldReleased = await this.heldKeys.tick();
    const withdrawalsSettled = await this.withdrawals.tick();
    return { late, timedOut, executorsDown, reconciled, fanOuts, approvals, heldReleased, withdrawalsSettled };
  }

  private async startLate(): Promise<number> {
    const now = this.clock.now();
    // Read each tick (one index dive), not kept: a task saved with a shorter deadline counts at once.
    const least = await readLeastStartDeadline(this.dataSource.manager);
    if (least === null) return 0;
    const rows = await findLateRuns(this.dataSource.manager, { groups: this.config.groups, now, firedBefore: now - least, limit: BATCH });
    if (rows.length === 0) return 0;
    const givenUp = await this.giveUp(rows.filter(mayGiveUp), now);
    return givenUp + (await this.alarmLate(rows.filter((run) => !mayGiveUp(run)), now));
  }

  /** START_LATE for late runs that wait on: one election for the tick's runs (electLateRuns), their alarms in its transaction. */
  private async alarmLate(rows: readonly LateRunRow[], now: number): Promise<number> {
    if (rows.length === 0) return 0;
    return inTransaction(this.dataSource, async (em) => {
      const elected = await electLateRuns(em, rows.map((run) => run.runId), now);
      let raised = 0;
      for (const run of rows) {
        if (!elected.has(run.runId)) continue;
        // Measured from its fire time, its retry's instant, or when its keys admitted it after holding it back (find-late-runs.ts).
        const from = lateFromKind(run);
        await this.alarms.raise(em, {
          tenantId: run.tenantId,
          type: 'START_LATE',
          taskId: run.taskId,
          runId: run.runId,
          message: `Task ${run.taskName}: run ${run.runId} (attempt ${run.attempt}) not started ${now - run.lateFrom} ms after its ${from} time (start deadline ${run.startDeadlineMs} ms; ${run.state})`,
          data: { attempt: run.attempt, state: run.state, scheduledAt: run.scheduledAt, dueAt: run.dueAt, lateFrom: run.lateFrom, lateFromKind: from, startDeadlineMs: run.startDeadlineMs },
          alarmTypes: run.alarmTypes,
          silenceMs: run.alarmSilenceMs,
          now,
        });
        raised++;
      }
      return raised;
    });
  }

  /**
   * Late runs of GIVE_UP tasks (onStartLate) end FAILED, each in its own transaction with its
   * START_LATE alarm and follow-ups (RunOutcomes.endGivenUp); the guarded write is the election,
   * so two engines give a run up once. A run sent meanwhile, or not the scan's any more, is left.
   */
  private async giveUp(rows: readonly LateRunRow[], now: number): Promise<number> {
    if (rows.length === 0) return 0;
    const attempts = await findRunsForCallback(this.dataSource.manager, rows.map((run) => ({ runId: run.runId, tenantId: run.tenantId })));
    let givenUp = 0;
    for (const [i, late] of rows.entries()) {
      const run = attempts[i];
      if (run === null || run.attempt !== late.attempt) continue;
      const ended = await this.guard(run, () => followUpTransaction(this.dataSource, (em) => this.outcomes.endGivenUp(em, run, givenUpAs(late, now), now)));
      if (!ended) continue;
      givenUp++;
      await this.guard(run, () => this.heldKeys.ended(run, 'FAILED'));
    }
    return givenUp;
  }

  private async timeouts(): Promise<number> {
    const now = this.clock.now();
    const rows = await findOverdueRuns(this.dataSource.manager, { groups: this.config.groups, now, limit: BATCH });
    let handled = 0;
    for (const run of rows) {
      const ended = await this.guard(run, () =>
        followUpTransaction(this.dataSource, (em) =>
          this.outcomes.endAttempt(em, run, { to: 'TIMED_OUT', error: timedOutError(run) }, {
            from: [run.state],
            deadlineBefore: now,
            now,
          }),
        ),
      );
      if (!ended) continue;
      handled++;
      await this.abort(run);
      await this.guard(run, () => this.heldKeys.ended(run, ended.state));
    }
    return handled;
  }

  private async executorsDown(): Promise<number> {
    const now = this.clock.now();
    const heartbeatBefore = now - this.config.executorDeadAfterMs;
    // Silence counts only while this node could record heartbeats: after its database was down it
    // would find every executor silent — their heartbeats answered 500 — and declare them all DOWN
    // (then UP a beat later). None is, until the dead-after period has passed since it records again.
    const since = this.liveness.recordingSince();
    if (since !== null && since > heartbeatBefore) return 0;
    const rows = await findSilentExecutors(this.dataSource.manager, { groups: this.config.groups, heartbeatBefore });
    let down = 0;
    for (const executor of rows) {
      const moved = await inTransaction(this.dataSource, async (em) => {
        if (!(await markExecutorDown(em, executor.id, heartbeatBefore))) return false;
        await this.alarms.raise(em, {
          tenantId: executor.tenantId,
          type: 'EXECUTOR_DOWN',
          executorId: executor.id,
          message: `Executor ${executor.app} at ${executor.url} is DOWN: no heartbeat for ${now - executor.heartbeatAt} ms`,
          data: { app: executor.app, url: executor.url, heartbeatAt: executor.heartbeatAt },
          now,
        });
        return true;
      });
      if (!moved) continue;
      down++;
      // What it held for later instants and provably never started goes to another executor now, maybe before its instant.
      await this.handBack(executor);
    }
    return down;
  }

  /**
   * Runs of executors DOWN past the grace: those sent ahead that the executor provably never
   * started are handed back (again, if the hand-back at DOWN did not get them all), the rest end
   * as lost.
   */
  private async reconcile(): Promise<number> {
    const now = this.clock.now();
    const heartbeatBefore = now - this.config.executorDeadAfterMs - this.config.executorGraceMs;
    const rows = await findOrphanedRuns(this.dataSource.manager, { groups: this.config.groups, heartbeatBefore, limit: BATCH });
    let handed = 0;
    const executors = new Map(rows.filter((r) => r.executorId !== null).map((r) => [r.executorId!, { id: r.executorId!, tenantId: r.tenantId }]));
    for (const executor of executors.values()) handed += await this.handBack(executor);
    // A handed-back attempt has moved on: its row below matches nothing.
    const lost = await this.endLost(rows, now, (run) => `executor ${run.executorUrl ?? run.executorId} went DOWN and the run did not report back within the grace period${notKnownToStart(run)}`);
    return handed + lost;
  }

  /**
   * Attempts an executor was given before its process (re)started that the new process does not
   * hold (its heartbeat's `active`): lost with the old one, ended as a DOWN executor's are (FAILED,
   * or retried per the policy). A restart at the same URL within the DOWN grace left them
   * executing until their timeout (5 minutes by default), then blamed the timeout. Only attempts
   * sent more than RESTART_MARGIN_MS before the process start (its clock): one sent to the new
   * process as its heartbeat left is in the next heartbeat's list.
   */
  private async lostWithProcess(): Promise<number> {
    let handled = 0;
    for (const restart of this.restarts.take()) {
      const held = new Set(restart.active.map((a) => `${a.runId}:${a.attempt}`));
      const rows = await findRunsOfOldProcess(this.dataSource.manager, { tenantId: restart.tenantId, executorId: restart.executorId, dispatchedBefore: restart.startedAt - RESTART_MARGIN_MS, limit: BATCH });
      const started = new Date(restart.startedAt).toISOString();
      handled += await this.endLost(
        rows.filter((r) => !held.has(`${r.runId}:${r.attempt}`)),
        this.clock.now(),
        (run) => `executor ${run.executorUrl ?? run.executorId} restarted (its process started at ${started}) without this attempt: lost with the process it was sent to`,
      );
    }
    return handled;
  }

  /** SentAheadHandBacks.handBack; a failure is logged (the reconciliation tries again) and the tick goes on. */
  private handBack(executor: { id: number; tenantId: string }): Promise<number> {
    return this.handBacks.handBack(executor).catch((err: Error) => {
      this.logger.error(`hand-back of the runs sent ahead to DOWN executor ${executor.id} failed: ${err.message}`, { tenantId: executor.tenantId });
      return 0;
    });
  }

  /** Attempts their executor lost, each ended FAILED (or retried per its policy) in its own transaction, past the retry budget; how many ended. */
  private async endLost(rows: readonly RunAttemptRow[], now: number, why: (run: RunAttemptRow) => string): Promise<number> {
    let handled = 0;
    for (const run of rows) {
      const ended = await this.guard(run, () =>
        followUpTransaction(this.dataSource, (em) => this.outcomes.endAttempt(em, run, { to: 'FAILED', error: why(run) }, { from: [run.state], now, budgeted: false })),
      );
      if (!ended) continue;
      handled++;
      await this.guard(run, () => this.heldKeys.ended(run, ended.state));
    }
    return handled;
  }

  /** One run's transaction; a failure is logged and the others still get their turn. */
  private async guard<T>(run: RunAttemptRow, work: () => Promise<T>): Promise<T | null> {
    try {
      return await work();
    } catch (err) {
      this.logger.error(`watchdog step failed: ${(err as Error).message}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
      return null;
    }
  }

  /** Asks the run's executor to stop the timed-out attempt (fire and forget; 404 = not running there). */
  private async abort(run: RunAttemptRow): Promise<void> {
    if (!run.executorUrl) return;
    const tenant = await this.tenants.get(run.tenantId).catch(() => null);
    if (!tenant) return;
    const url = run.executorUrl;
    void this.client.abort(url, tenant, { runId: run.runId, attempt: run.attempt, reason: 'TIMEOUT' }, run.taskId).then((status) => {
      if (status === null || status >= 500) this.logger.warn(`abort of a timed-out run at ${url}: ${status ?? 'no answer'}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
    });
  }
}

/**
 * A timed-out attempt's error (and its TIMEOUT alarm's): a start its executor reported is named —
 * the handler ran and gave no result, unlike a run its executor never said it started.
 */
function timedOutError(run: OverdueRunRow): string {
  const executor = run.executorUrl ?? run.executorId ?? '?';
  if (run.startedAt === null) return `did not finish within its timeout (${run.state} on executor ${executor})`;
  return `did not finish within its timeout (${run.timeoutMs} ms from its dispatch): started at ${new Date(run.startedAt).toISOString()} on executor ${executor}, no result by its deadline`;
}

/** What a lost attempt's error adds when no start of it was reported: it may have been held for its instant and never started. */
function notKnownToStart(run: RunAttemptRow): string {
  if (run.startedAt !== null) return '';
  return ` (no start of it was reported: it may never have started; its instant was ${new Date(run.instant).toISOString()})`;
}

/**
 * Whether a late run is given up rather than alarmed: its task says GIVE_UP and no executor may
 * have it (a dispatch that got no answer leaves runs.executor_id set: that run may be running, and
 * is only alarmed). giveUpLateRun checks the same in its guard.
 */
function mayGiveUp(run: LateRunRow): boolean {
  return run.onStartLate === 'GIVE_UP' && run.executorId === null;
}

/** Most characters of the run's own error (why it waits, or its last attempt's failure) quoted in its given-up error. */
const WAIT_REASON_CHARS = 500;

/** A given-up run's error and START_LATE alarm: what deadline it missed, from which instant, and why it waited. */
function givenUpAs(run: LateRunRow, now: number): { lateFrom: number; error: string; alarm: { message: string; data: Record<string, string | number> } } {
  const from = lateFromKind(run);
  const waited = run.error === null ? '' : `; its error: ${run.error.slice(0, WAIT_REASON_CHARS)}`;
  const error = `given up: not started within startDeadlineMs (${run.startDeadlineMs} ms) of its ${from} time — not sent to an executor of app ${run.executorApp} by then (${run.state}${waited})`;
  return {
    lateFrom: run.lateFrom,
    error,
    alarm: {
      message: `Task ${run.taskName}: run ${run.runId} (attempt ${run.attempt}) given up, not started ${now - run.lateFrom} ms after its ${from} time (start deadline ${run.startDeadlineMs} ms, onStartLate GIVE_UP; ${run.state}): it ends FAILED`,
      data: { attempt: run.attempt, state: run.state, scheduledAt: run.scheduledAt, dueAt: run.dueAt, lateFrom: run.lateFrom, lateFromKind: from, startDeadlineMs: run.startDeadlineMs, onStartLate: 'GIVE_UP' },
    },
  };
}
