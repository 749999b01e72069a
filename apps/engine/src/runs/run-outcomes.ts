import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { fanOutOutcome, HANDED_BACK, retryDecision, type AlarmType, type RetryDecision, type RetryPolicy, type RunCause, type RunState, type TimelineClock } from '@baton/domain';
import { afterCommit, countConsecutiveHandBacks, countHandedBackAttempts, finishRunAttempt, finishSucceededRuns, giveUpLateRun, pauseFailingTask, rejectWaitingRun, retryRunAttempt, standOfFanOut, type AckTimes, type FollowUpHints, type SucceededAttempt } from '@baton/persistence';
import { splitError } from '@baton/protocol';
import { Alarms } from '../alarms/alarms';
import { severityOf } from '../alarms/alarm-policy';
import { ClaimSignal } from '../common/claim-signal';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { FanOutNudges } from './fan-out-nudges';
import { FollowUps } from '../follow-ups/follow-ups';
import { RetryBudgets } from './retry-budgets';

/** The attempt being ended, and what deciding its fate needs. */
export interface AttemptRef {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  attempt: number;
  /** The attempt's instant (its fire time, or its retry's due time): its retry is never due before it (domain retryDecision). */
  instant: number;
  flowId: number | null;
  cause?: RunCause;
  followUps?: FollowUpHints;
  retry: RetryPolicy;
  /** The task's alarm types; undefined: looked up; null: every type. */
  alarmTypes?: AlarmType[] | null;
  /** The task's alarm silence window; with alarmTypes, nothing is looked up. Undefined: looked up. */
  alarmSilenceMs?: number;
  executorId?: number | null;
  /** A shard's fan-out run: the shard's end may end it (and its follow-ups are that run's). Undefined/null: not a shard. */
  shardOf?: number | null;
  /** W3C traceparent its DAG children are made under (the outcome span's); undefined: untraced. */
  traceParent?: string | null;
}

export type AttemptEnd =
  | { to: 'SUCCEEDED'; resultJson: string | null }
  /** `retry: false`: end for good whatever the retry policy says. `resultJson`: what it did produce (a fan-out run's shards). */
  | { to: 'FAILED' | 'TIMED_OUT'; error: string; retry?: boolean; resultJson?: string | null }
  /** A run sent ahead that its executor never started (lost contact with the engines): dispatched again at its instant, not counted as an attempt. */
  | { to: typeof HANDED_BACK; error: string };

/**
 * Most hand-backs of one run in a row (5) before the next one counts as a failed attempt. A
 * hand-back is free — the run goes out again at once, no attempt spent — which is right for an
 * executor that lost contact for a while, but an executor that never has contact (a network that
 * lets the engines' dispatches in and nothing out, a clock that leaves every lease expired) answers
 * NO_CONTACT to every run it is sent, and the run would go back and forth between it and the
 * engines for good. Five covers a run sent ahead to a few executors that each dropped it in one
 * outage; past that, the retry policy decides, as for any failure.
 */
export const MAX_CONSECUTIVE_HAND_BACKS = 5;

export interface EndOptions {
  /** States the run must be in (guard), e.g. ['DISPATCHED', 'ACCEPTED']. */
  from: readonly RunState[];
  now: number;
  startedAt?: number | null;
  /**
   * The end as its executor reported it (its clock); absent or null: `now`, on the engine's clock —
   * an end the engine decided (a timeout, a lost executor…) or one reported without a time.
   */
  finishedAt?: number | null;
  /** Extra guards (see finishRunAttempt). */
  claimedBy?: string;
  deadlineBefore?: number;
  /** The executor's 202 the engine held back (DispatchMarks): written with the end. */
  ack?: AckTimes | null;
  /**
   * Which alarm: STANDARD — RETRYING (INFO) when retried, FAILED when it fails for good,
   * TIMEOUT for a timeout either way; a fixed type (e.g. DISPATCH_REJECTED); or NONE.
   */
  alarm?: 'STANDARD' | 'NONE' | { type: Exclude<AlarmType, 'BUSINESS'> };
  /**
   * Whether a retry waits for the tenant's retry budget (RetryBudgets). Default true. False for an
   * attempt its executor's death ended: it failed once, its retry goes to another executor, and a
   * crashed executor's runs are not a storm to pace.
   */
  budgeted?: boolean;
}

/**
 * An attempt's end time and whose clock it is: the time its executor reported, or — none
 * reported (an end the engine decided, an outcome without a time) — the engine's `now`.
 */
export function endStamp(reported: number | null | undefined, now: number): { finishedAt: number; finishedClock: TimelineClock } {
  return reported == null ? { finishedAt: now, finishedClock: 'engine' } : { finishedAt: reported, finishedClock: 'executor' };
}

export type EndedAs =
  | { state: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' }
  | { state: 'RETRY_WAIT'; nextAttempt: number; dueAt: number };

/**
 * Ends an attempt, the same way from every place that can: an outcome callback, the watchdog's
 * timeout, the reconciliation of a dead executor's runs, the dispatcher when every executor
 * refused the run. In the caller's transaction (followUpTransaction):
 *
 * - success → SUCCEEDED, then follow-ups (children, fixed delay);
 * - failure/timeout with attempts left (domain retryDecision) → RETRY_WAIT as attempt + 1, due
 *   after the task's backoff with jitter, or later when the tenant's retry budget paces it
 *   (RetryBudgets), plus its alarm;
 * - otherwise → FAILED / TIMED_OUT, its alarm, then follow-ups (ON_FAILURE children…);
 * - handed back (a run sent ahead that its executor provably never started) → RETRY_WAIT as
 *   attempt + 1, due now and keeping its instant, no alarm; the retry policy does not count it
 *   (countHandedBackAttempts), so a task of one attempt still gets its one — up to
 *   MAX_CONSECUTIVE_HAND_BACKS in a row: the next one ends as a failed attempt.
 *
 * A shard's end for good has no alarm, pause or follow-ups of its own: it may end its fan-out
 * run (settleFanOut), and that run's end raises them, once, for the task.
 *
 * Every move is one guarded update (state, attempt, and the caller's extra guards): null means
 * somebody else ended this attempt first and nothing was written.
 */
@Injectable()
export class RunOutcomes {
  constructor(
    private readonly alarms: Alarms,
    private readonly followUps: FollowUps,
    private readonly nudges: FanOutNudges,
    private readonly signal: ClaimSignal,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly budgets: RetryBudgets,
  ) {}

  async endAttempt(manager: EntityManager, run: AttemptRef, reported: AttemptEnd, options: EndOptions): Promise<EndedAs | null> {
    const { now } = options;
    const end = reported.to === HANDED_BACK ? await this.handBackOrCounted(manager, run, reported) : reported;
    const guard = { runId: run.runId, attempt: run.attempt, from: options.from, claimedBy: options.claimedBy, deadlineBefore: options.deadlineBefore };
    const ack = options.ack ?? null;
    const startedAt = options.startedAt ?? null;
    const { finishedAt, finishedClock } = endStamp(options.finishedAt, now);
    if (end.to === 'SUCCEEDED') {
      const moved = await finishRunAttempt(manager, { ...guard, to: 'SUCCEEDED', resultJson: end.resultJson, error: null, startedAt, finishedAt, finishedClock, now, ack });
      if (!moved) return null;
      this.firstEnded(run, now);
      await this.ended(manager, run, 'SUCCEEDED', now);
      return { state: 'SUCCEEDED' };
    }
    if (end.to === HANDED_BACK) {
      const moved = await retryRunAttempt(manager, { ...guard, dueAt: now, error: end.error, endedAs: HANDED_BACK, startedAt: null, finishedAt: now, finishedClock: 'engine', now, ack });
      if (!moved) return null;
      this.firstEnded(run, now);
      // Due now, to be sent ahead again for its instant: claimed once this commits, not at the next poll.
      afterCommit(manager, () => this.signal.due(run.tenantId));
      return { state: 'RETRY_WAIT', nextAttempt: run.attempt + 1, dueAt: now };
    }
    const { decision, counted } = await this.retryOf(manager, run, end, now);
    if (decision.retry) {
      // The attempt's own end counts before its retry is placed: a first attempt earns its share first.
      this.firstEnded(run, now);
      // The tenant's retry budget may make it due later than its backoff says, never sooner.
      const dueAt = options.budgeted === false ? decision.dueAt : this.budgets.dueAt(run.tenantId, run.runId, decision.dueAt, now);
      const moved = await retryRunAttempt(manager, { ...guard, dueAt, error: end.error, endedAs: end.to, startedAt, finishedAt, finishedClock, now, ack });
      if (!moved) return null;
      // A retry due before the next poll would be found late by it: claimed once this commits instead.
      if (dueAt < now + this.config.claimIntervalMs) afterCommit(manager, () => this.signal.due(run.tenantId));
      const what = end.to === 'TIMED_OUT' ? 'timed out' : 'failed';
      const error = splitError(end.error);
      const paced = dueAt > decision.dueAt ? ` (${dueAt - decision.dueAt} ms of it the tenant's retry budget)` : '';
      await this.alarm(manager, run, options, end.to === 'TIMED_OUT' ? 'TIMEOUT' : 'RETRYING', false, {
        message: `Task ${run.taskName}: run ${run.runId} attempt ${run.attempt} ${what}: ${error.summary} — retrying as attempt ${decision.nextAttempt} in ${dueAt - now} ms${paced}`,
        data: { attempt: run.attempt, error: error.summary, ...detailOf(error), nextAttempt: decision.nextAttempt, dueAt, ...(paced ? { pacedMs: dueAt - decision.dueAt } : {}) },
      });
      return { state: 'RETRY_WAIT', nextAttempt: decision.nextAttempt, dueAt };
    }
    const moved = await finishRunAttempt(manager, { ...guard, to: end.to, resultJson: end.resultJson ?? null, error: end.error, startedAt, finishedAt, finishedClock, now, ack });
    if (!moved) return null;
    this.firstEnded(run, now);
    if (isShard(run)) {
      await this.ended(manager, run, end.to, now);
      return { state: end.to };
    }
    const what = end.to === 'TIMED_OUT' ? 'timed out' : 'failed';
    const error = splitError(end.error);
    await this.alarm(manager, run, options, end.to === 'TIMED_OUT' ? 'TIMEOUT' : 'FAILED', true, {
      message: `Task ${run.taskName}: run ${run.runId} ${what} (attempt ${counted} of ${run.retry.maxAttempts}${counted < run.attempt ? `, after ${run.attempt - counted} handed back unstarted` : ''}): ${error.summary}`,
      data: { attempt: run.attempt, error: error.summary, ...detailOf(error) },
    });
    await this.pauseIfFailing(manager, run, now);
    await this.ended(manager, run, end.to, now);
    return { state: end.to };
  }

  /**
   * A hand-back as it is, or — the run handed back MAX_CONSECUTIVE_HAND_BACKS times in a row
   * already — a failed attempt, which the retry policy judges (one read, of hand-backs only).
   */
  private async handBackOrCounted(manager: EntityManager, run: AttemptRef, end: { to: typeof HANDED_BACK; error: string }): Promise<AttemptEnd> {
    if ((await countConsecutiveHandBacks(manager, run.runId, MAX_CONSECUTIVE_HAND_BACKS)) < MAX_CONSECUTIVE_HAND_BACKS) return end;
    return { to: 'FAILED', error: `${end.error} — handed back ${MAX_CONSECUTIVE_HAND_BACKS + 1} times in a row without starting (at most ${MAX_CONSECUTIVE_HAND_BACKS} go uncounted): counted as a failed attempt` };
  }

  /**
   * Whether the failed attempt is retried (domain retryDecision). Attempts handed back never ran
   * and do not count: when the policy says the attempts are used up and some were, it is asked
   * again without them (one read, only then: most runs never get there).
   */
  private async retryOf(manager: EntityManager, run: AttemptRef, end: { retry?: boolean }, now: number): Promise<{ decision: RetryDecision; counted: number }> {
    const retryable = end.retry !== false;
    const decision = retryDecision(run.retry, run.attempt, now, Math.random, retryable, run.instant);
    if (decision.retry || run.attempt === 1) return { decision, counted: run.attempt };
    const counted = run.attempt - (await countHandedBackAttempts(manager, run.runId));
    if (counted === run.attempt || !retryable) return { decision, counted };
    const again = retryDecision(run.retry, counted, now, Math.random, true, run.instant);
    return { decision: again.retry ? { ...again, nextAttempt: run.attempt + 1 } : again, counted };
  }

  /**
   * A run waiting for approval is rejected, by a person or by its deadline: APPROVAL_WAIT → FAILED
   * (rejectWaitingRun), never retried (nothing ran), with a FAILED alarm and the follow-ups of any
   * failed run, so its flow goes on as after a failure (ON_FAILURE children fire, ON_SUCCESS ones
   * do not). Not counted toward pauseAfterFailures: a person's no is not the task failing.
   * False when the run no longer waits (cancelled meanwhile): nothing is written.
   */
  async endRejected(manager: EntityManager, run: AttemptRef, error: string, now: number): Promise<boolean> {
    if (!(await rejectWaitingRun(manager, { runId: run.runId, error, now }))) return false;
    await this.alarm(manager, run, { from: ['APPROVAL_WAIT'], now }, 'FAILED', true, { message: `Task ${run.taskName}: run ${run.runId} ${error}`, data: { error } });
    await this.ended(manager, run, 'FAILED', now);
    return true;
  }

  /**
   * A run of a GIVE_UP task not sent within its start deadline ends FAILED (giveUpLateRun: only a
   * run provably never sent, once across the engines), never retried (nothing ran), with one
   * START_LATE alarm saying it was given up (CRITICAL: the fire is lost) in place of the FAILED
   * one — a FAILED alarm with that message for a task whose alarm types leave START_LATE out but
   * take FAILED, so a task that silenced the lateness alarm still hears of a lost fire — and the follow-ups of any failed run: its ON_FAILURE and ON_COMPLETION children fire, a
   * fixed-delay chain goes on, and it counts toward pauseAfterFailures; a shard's may end its
   * fan-out run. False when the run was sent, admitted later or ended meanwhile: nothing is written.
   */
  async endGivenUp(manager: EntityManager, run: AttemptRef, late: { lateFrom: number; error: string; alarm: { message: string; data: Record<string, string | number> } }, now: number): Promise<boolean> {
    if (!(await giveUpLateRun(manager, { runId: run.runId, attempt: run.attempt, lateFrom: late.lateFrom, error: late.error, now }))) return false;
    this.firstEnded(run, now);
    const type = run.alarmTypes && !run.alarmTypes.includes('START_LATE') ? 'FAILED' : 'START_LATE';
    await this.alarm(manager, run, { from: ['PENDING', 'CLAIMED', 'RETRY_WAIT'], now }, type, true, late.alarm);
    if (!isShard(run)) await this.pauseIfFailing(manager, run, now);
    await this.ended(manager, run, 'FAILED', now);
    return true;
  }

  /** A run's first attempt ended (whatever its outcome): it earns the tenant's retry budget its share. */
  private firstEnded(run: AttemptRef, now: number): void {
    if (run.attempt === 1) this.budgets.firstAttemptsEnded(run.tenantId, 1, now);
  }

  /** After the run's end for good: a shard may end its fan-out run; any other run has its follow-ups. */
  private async ended(manager: EntityManager, run: AttemptRef, state: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT', now: number): Promise<void> {
    if (isShard(run)) await this.settleFanOut(manager, run.shardOf, now);
    else await this.followUps.afterRunEnded(manager, run, state, now);
  }

  /**
   * Successes that need no follow-ups of their own (no children, no fixed-delay fire): one guarded
   * multi-row update (finishSucceededRuns), then the fan-out runs some of them were shards of are
   * settled, once each. Returns, per run id, the attempt that moved (an attempt listed twice moved
   * once). The outcome callbacks' fast path: a burst's successes end together instead of one
   * transaction each. `expectAll`: see finishSucceededRuns (throws NotAllSucceededError unless every one moved).
   */
  async endSucceededTogether(
    manager: EntityManager,
    attempts: ReadonlyArray<SucceededAttempt & { shardOf: number | null; tenantId: string }>,
    options: { from: readonly RunState[]; now: number; expectAll?: boolean },
  ): Promise<Map<number, number>> {
    const moved = await finishSucceededRuns(manager, { from: options.from, now: options.now, attempts, expectAll: options.expectAll });
    for (const a of attempts) if (a.attempt === 1 && moved.get(a.runId) === 1) this.budgets.firstAttemptsEnded(a.tenantId, 1, options.now);
    const fanOuts = new Set(attempts.filter((a) => a.shardOf !== null && moved.get(a.runId) === a.attempt).map((a) => a.shardOf as number));
    for (const fanOutRunId of fanOuts) await this.settleFanOut(manager, fanOutRunId, options.now);
    return moved;
  }

  /**
   * A shard has ended for good: when it was the last of its fan-out run's shards still going, that
   * run ends now, in this transaction — SUCCEEDED or FAILED per the task's failWhen (domain
   * fanOutOutcome), never retried itself (its shards were), with the shards' results — and has
   * its alarm, pause and follow-ups as any run. standOfFanOut decides, under a lock, that this
   * is the last; when another shard looked still going it may be ending at this very moment, so
   * the run is handed to the FanOutSettler (`nudge`) once this transaction has committed; the
   * other shard's transaction, if it saw this one going, does the same after its own commit.
   */
  async settleFanOut(manager: EntityManager, fanOutRunId: number, now: number, options: { nudge: boolean } = { nudge: true }): Promise<void> {
    const stand = await standOfFanOut(manager, fanOutRunId);
    // After the commit: a settler that looked before this shard's end was visible would see it going too.
    if (stand.kind === 'GOING' && options.nudge) afterCommit(manager, () => this.nudges.nudge(fanOutRunId));
    if (stand.kind !== 'SETTLED') return;
    const outcome = fanOutOutcome(stand.failWhen, stand.shards);
    const end: AttemptEnd =
      outcome.state === 'SUCCEEDED' ? { to: 'SUCCEEDED', resultJson: outcome.resultJson } : { to: 'FAILED', error: outcome.error ?? 'failed', retry: false, resultJson: outcome.resultJson };
    await this.endAttempt(manager, stand.run, end, { from: ['ACCEPTED'], now });
  }

  /**
   * A task set to pause itself after n failures in a row (tasks.pause_after_failures) is paused
   * in this transaction, with a TASK_PAUSED alarm — raised whatever the task's alarm types say:
   * they were chosen before the task could pause, and a task that stops must not stop silently.
   */
  private async pauseIfFailing(manager: EntityManager, run: AttemptRef, now: number): Promise<void> {
    const failures = await pauseFailingTask(manager, { taskId: run.taskId, now });
    if (failures === null) return;
    await this.alarms.raise(manager, {
      tenantId: run.tenantId,
      type: 'TASK_PAUSED',
      severity: severityOf('TASK_PAUSED'),
      taskId: run.taskId,
      runId: run.runId,
      message: `Task ${run.taskName} paused itself: its last ${failures} run(s) failed (pause after ${failures} failures); resume it when fixed`,
      data: { failures },
      alarmTypes: null,
      now,
    });
  }

  private async alarm(
    manager: EntityManager,
    run: AttemptRef,
    options: EndOptions,
    standard: Exclude<AlarmType, 'BUSINESS'>,
    final: boolean,
    content: { message: string; data: Record<string, string | number> },
  ): Promise<void> {
    const choice = options.alarm ?? 'STANDARD';
    if (choice === 'NONE') return;
    const type = choice === 'STANDARD' ? standard : choice.type;
    await this.alarms.raise(manager, {
      tenantId: run.tenantId,
      type,
      severity: severityOf(type, { final }),
      taskId: run.taskId,
      runId: run.runId,
      executorId: run.executorId ?? null,
      message: content.message,
      data: content.data,
      alarmTypes: run.alarmTypes,
      silenceMs: run.alarmSilenceMs,
      now: options.now,
    });
  }
}

function isShard(run: AttemptRef): run is AttemptRef & { shardOf: number } {
  return run.shardOf !== undefined && run.shardOf !== null;
}

/** An alarm's `detail`: the error's lines after the first (a stack), kept apart from its message. */
function detailOf(error: { detail: string | null }): { detail?: string } {
  return error.detail === null ? {} : { detail: error.detail };
}
