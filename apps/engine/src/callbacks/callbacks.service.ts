import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, HANDED_BACK, settledByCallback, type Clock, type JsonValue, type RunState } from '@baton/domain';
import { appendRunLogs, findRunsForCallback, GroupCommit, inTransaction, keyPlaceOf, NotAllSucceededError, recordRunProgress, recordStartOfEndedRun, recordStartOfTimedOutAttempt, takeAttemptReport, type AckTimes, type RunAttemptRow, type RunKeyRef, type SucceededAttempt } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import type { BusinessAlarm, RunCallback } from '@baton/protocol';
import { isSampled, traceparentOf, tracingOn } from '@baton/tracing';
import { Alarms } from '../alarms/alarms';
import { truncateUtf8 } from '../alarms/text';
import { EngineMetrics } from '../metrics/engine-metrics';
import { FOLLOW_UP_ISOLATION } from '../follow-ups/follow-ups';
import { DispatchMarks } from '../runs/dispatch-marks';
import { HeldAttempts } from '../runs/held-attempts';
import { RunEvents } from '../runs/run-events';
import { endStamp, RunOutcomes, type AttemptEnd } from '../runs/run-outcomes';
import { KeyAdmissions } from '../runs/key-admissions';
import { MAX_LOG_LINES_PER_RUN } from './callback-body';
import { endOutcomeSpan, startOutcomeSpan } from '../tracing/run-spans';
import { EarlyStarts } from './early-starts';
import { WithdrawnFires } from '../wakeups/withdrawn-fires';

/** A verified outcome callback and its run as read. */
interface Outcome {
  cb: RunCallback;
  run: RunAttemptRow;
  /** The outcome span's traceparent when traced: the run's DAG children join its trace under it. */
  traceParent?: string;
  /** The executor's 202 this engine held back (DispatchMarks), written with the outcome; null: none held. */
  ack: AckTimes | null;
}

/** Where an ended attempt went (RETRY_WAIT: the policy retries it). */
type EndedState = { state: RunState };

export type CallbackReply =
  | { status: 200; body: { accepted: true; runId: number; attempt: number; state: RunState | 'RUNNING' } }
  | { status: 409; body: { accepted: false; runId: number; attempt: number; reason: 'STALE' | 'UNKNOWN_RUN'; state: RunState | null } };

/** Largest result stored (TEXT is 65 535 bytes); the SDK caps results at 64 000 bytes already. */
const MAX_RESULT_BYTES = 65_000;

/**
 * What a verified callback does. Any engine node takes any callback: all state lives in the
 * database and every change is a guarded transition, so callbacks retried by the SDK, sent to
 * two engines, or racing the watchdog each take effect once; the others get 409.
 *
 * - Interim (no outcome): progress, log lines (capped per run), business alarms — only while
 *   that attempt is executing (DISPATCHED/ACCEPTED), else 409 naming the run's state (the runs
 *   of the stale ones read together, as outcomes' are); only a withdrawn fire's settles its
 *   withdrawal — the others look for none.
 * - Outcome: in ONE transaction — the guarded end of the attempt (RunOutcomes: SUCCEEDED, or
 *   FAILED/TIMED_OUT, or RETRY_WAIT as attempt + 1 per the retry policy — never for a FAILED
 *   callback with `retryable: false` — with its alarm),
 *   result/error/timings, log lines, business alarms, and the follow-ups (children, fixed
 *   delay). ABORTED counts as FAILED — as TIMED_OUT when the executor aborted on the run's
 *   deadline, and as handed back (dispatched again, not counted) when it never started a run
 *   sent ahead for lack of contact with the engines (NO_CONTACT; up to MAX_CONSECUTIVE_HAND_BACKS
 *   in a row, RunOutcomes); a run the engine already
 *   TIMED_OUT or CANCELLED (it asked for the abort) is over, so its ABORTED callback is stale: 409
 *   (the attempt keeps the start and log lines it reports, once, keepReportOfEnded — also an
 *   attempt timed out and retried, whose ABORTED comes while the next attempt runs).
 *   A withdrawn prepared fire's callback (CANCELLED, its withdrawal unsettled) first settles
 *   whether its executor started it (WithdrawnFires, settledByCallback), then gets its 409.
 *
 * The callbacks that arrive together are read with one statement and their outcomes committed
 * in one transaction (Coalescer, GroupCommit): in a burst every run's callback used to cost its
 * own read and its own transaction of ~6 round trips. The commonest of them — a success of a task
 * with no follow-ups (no DAG children, not FIXED_DELAY; a shard's are its fan-out run's) — go further: one statement ends them all
 * (RunOutcomes.endSucceededTogether); if that transaction fails, each goes the general way alone.
 * An outcome whose 202 this engine still holds (BATON_ACK_HOLD_MS) writes its Accepted time too,
 * and the ACCEPTED mark is dropped (DispatchMarks.settled). An outcome of an attempt this engine
 * sent is judged from what it sent (HeldAttempts), without reading the run first.
 */
@Injectable()
export class CallbacksService {
  private readonly logger = new Logger('CallbacksService');
  private readonly lookups: Coalescer<{ runId: number; tenantId: string }, RunAttemptRow | null>;
  /** Outcome transactions, with the isolation every transaction that may run follow-ups needs. */
  private readonly outcomeCommits: GroupCommit;
  /** Successes without follow-ups, ended together (null: that one was stale). */
  private readonly plainSuccesses: Coalescer<Outcome, EndedState | null>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outcomes: RunOutcomes,
    private readonly alarms: Alarms,
    private readonly events: RunEvents,
    private readonly metrics: EngineMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly earlyStarts: EarlyStarts,
    private readonly keys: KeyAdmissions,
    private readonly marks: DispatchMarks,
    private readonly attempts: HeldAttempts,
    private readonly withdrawn: WithdrawnFires,
  ) {
    this.lookups = new Coalescer((requests) => findRunsForCallback(this.dataSource.manager, requests), { concurrency: 4 });
    this.outcomeCommits = new GroupCommit(dataSource, { isolation: FOLLOW_UP_ISOLATION, concurrency: 4 });
    this.plainSuccesses = new Coalescer((items) => this.succeedTogether(items), { concurrency: 4, maxBatch: 200 });
  }

  async handle(callback: RunCallback): Promise<CallbackReply> {
    return callback.outcome ? this.outcome(callback) : this.interim(callback);
  }

  private async interim(cb: RunCallback): Promise<CallbackReply> {
    const now = this.clock.now();
    // Business alarms name the task and honour its alarm types: read the run first (outside the write).
    const run = cb.alarms?.length ? await this.lookups.push({ runId: cb.runId, tenantId: cb.tenantId }) : null;
    const live = await inTransaction(this.dataSource, async (em) => {
      const moved = await recordRunProgress(em, {
        runId: cb.runId,
        tenantId: cb.tenantId,
        attempt: cb.attempt,
        progress: cb.progress ?? null,
        startedAt: cb.startedAt ?? null,
        now,
      });
      if (!moved) return false;
      await this.store(em, cb, run, now);
      return true;
    });
    if (!live) {
      // What the run is now (not as read before the write), read with the callbacks that arrive together: one statement.
      const ended = await this.lookups.push({ runId: cb.runId, tenantId: cb.tenantId });
      if (!ended) return this.stale(cb, null, 'UNKNOWN_RUN');
      // A progress report of a withdrawn fire: its executor started it.
      if (isWithdrawnAttempt(ended, cb)) await this.withdrawn.settleQuietly(cb.tenantId, cb.runId, cb.attempt, settledByCallback(cb), cb);
      return this.stale(cb, ended.state, 'STALE');
    }
    return { status: 200, body: { accepted: true, runId: cb.runId, attempt: cb.attempt, state: 'RUNNING' } };
  }

  private async outcome(cb: RunCallback): Promise<CallbackReply> {
    // The handler's span the executor names, when sampled: an unsampled run's outcome makes no span.
    if (!tracingOn() || !isSampled(cb.traceparent)) return this.endOutcome(cb, undefined);
    const span = startOutcomeSpan(cb);
    let reply: CallbackReply | undefined;
    try {
      return (reply = await this.endOutcome(cb, traceparentOf(span) ?? undefined));
    } finally {
      endOutcomeSpan(span, reply?.body.state ?? null, reply?.body.accepted === false ? reply.body.reason : undefined);
    }
  }

  /**
   * `fresh`: judged from a read of the run even if this engine holds what it sent (HeldAttempts):
   * the second time, when what it held was no longer so (the guarded write moved nothing).
   */
  private async endOutcome(cb: RunCallback, traceParent: string | undefined, fresh = false): Promise<CallbackReply> {
    // A decision aid, held since the dispatch or read outside the transaction; the guarded update inside decides.
    const held = fresh ? null : this.attempts.take(cb);
    const run = held ?? (await this.lookups.push({ runId: cb.runId, tenantId: cb.tenantId }));
    if (!run) return this.stale(cb, null, 'UNKNOWN_RUN');
    if (run.attempt !== cb.attempt || !OUTCOME_FROM.includes(run.state)) {
      // A withdrawn fire's executor says whether it started it: settled first, still answered 409.
      if (isWithdrawnAttempt(run, cb)) await this.withdrawn.settleQuietly(cb.tenantId, cb.runId, cb.attempt, settledByCallback(cb), cb);
      if (mayReportEndedAttempt(run, cb)) await this.keepReportOfEnded(cb, run.attempt === cb.attempt);
      return this.stale(cb, run.state, 'STALE');
    }
    const plain = cb.outcome === 'SUCCEEDED' && !run.followUps.children && !run.followUps.fixedDelay;
    const ack = this.marks.heldAck(cb.runId, cb.attempt);
    const ended = plain ? await this.plainSuccesses.push({ cb, run, ack }) : await this.endAlone({ cb, run, traceParent, ack });
    if (!ended) return held ? this.endOutcome(cb, traceParent, true) : this.stale(cb, null, 'STALE');
    if (ack) this.marks.settled(cb.runId, cb.attempt);
    this.events.ended(cb.runId, cb.attempt);
    const place = keyPlaceOf(run);
    if (place !== null && ended.state !== 'RETRY_WAIT') this.releaseKey(run, place);
    await this.earlyStarts.check(run, cb.startedAt ?? null, this.clock.now());
    if (run.executorId !== null && cb.credit !== undefined && cb.creditSeq !== undefined) this.events.executorCredit(run.executorId, cb.credit, cb.creditSeq);
    return { status: 200, body: { accepted: true, runId: cb.runId, attempt: cb.attempt, state: ended.state } };
  }

  /**
   * A run cancelled or timed out while it ran keeps what its executor reports in the (stale)
   * outcome about that attempt: its start, and the handler's last log lines (under the per-run
   * cap, attributed to that attempt) — they tell what it was doing when it was stopped. Its
   * outcome is not taken: still 409. So does an attempt timed out and retried (`current` false:
   * the run row is the next attempt's, which this leaves as it is). Once per attempt
   * (takeAttemptReport): a copy of the callback sent again, its answer lost, keeps nothing.
   */
  private async keepReportOfEnded(cb: RunCallback, current: boolean): Promise<void> {
    const { startedAt, logs } = cb;
    if (startedAt === undefined && !logs?.length) return;
    const now = this.clock.now();
    const attempt = { runId: cb.runId, tenantId: cb.tenantId, attempt: cb.attempt };
    await inTransaction(
      this.dataSource,
      async (em) => {
        if (!(await takeAttemptReport(em, { ...attempt, now }))) return;
        if (startedAt !== undefined) await (current ? recordStartOfEndedRun(em, { ...attempt, startedAt, now }) : recordStartOfTimedOutAttempt(em, { ...attempt, startedAt }));
        if (logs?.length) await appendRunLogs(em, { ...attempt, lines: logs, maxPerRun: MAX_LOG_LINES_PER_RUN, now });
      },
      { isolation: 'READ COMMITTED' },
    );
  }

  /** A keyed run ended: its place goes to its key's oldest held run now, not at the next sweep. */
  private releaseKey(run: RunAttemptRow, place: RunKeyRef): void {
    this.keys.release(place).catch((err: Error) => {
      this.logger.warn(`releasing key places after run ${run.runId} failed (the held-keys sweep will): ${err.message}`, { tenantId: run.tenantId, runId: run.runId });
    });
  }

  /** The general way: the attempt ended per its outcome and retry policy, with alarms and follow-ups, in a group-committed transaction. */
  private endAlone({ cb, run, traceParent, ack }: Outcome): Promise<EndedState | null> {
    const now = this.clock.now();
    const end = endOf(cb, run);
    return this.outcomeCommits.run(async (em) => {
      const result = await this.outcomes.endAttempt(em, traceParent ? { ...run, traceParent } : run, end, {
        from: OUTCOME_FROM,
        startedAt: cb.startedAt ?? null,
        finishedAt: cb.finishedAt,
        now,
        ack,
      });
      if (!result) return null;
      // Timed out by this very report: a copy of it sent again is not the report of an attempt that had ended (keepReportOfEnded).
      if (end.to === 'TIMED_OUT') await takeAttemptReport(em, { runId: cb.runId, tenantId: cb.tenantId, attempt: cb.attempt, now });
      await this.store(em, cb, run, now);
      return result;
    });
  }

  /**
   * Successes without follow-ups: one guarded multi-row update, then each one's log lines and
   * alarms, in one transaction. First optimistically (the lookup just saw each attempt executing:
   * the UPDATE alone, no locking read) and, when they carry nothing but the outcome, at the
   * server's isolation (no follow-ups, no inserts: READ COMMITTED would only cost the SET
   * TRANSACTION round trip); if some attempt did not move (NotAllSucceededError, rolled back), again
   * with the locking read, which tells which moved.
   */
  private async succeedTogether(items: Outcome[]): Promise<Array<EndedState | null>> {
    if (items.length === 1) return [await (isBare(items[0]) ? this.endBare(items[0]) : this.endAlone(items[0]))];
    try {
      try {
        return await this.endTogether(items, true);
      } catch (err) {
        if (!(err instanceof NotAllSucceededError)) throw err;
        return await this.endTogether(items, false);
      }
    } catch {
      // Rolled back as a whole: each the general way, alone, so one bad item fails only itself.
      return Promise.all(items.map((item) => this.endAlone(item)));
    }
  }

  /**
   * A success that arrived alone and carries nothing but its outcome: its guarded UPDATE is the
   * whole write, so it commits on its own — one statement, where a transaction is four (SET
   * TRANSACTION, START, the UPDATE, COMMIT). A run that did not move was no longer that attempt's
   * (stale): nothing was written.
   */
  private async endBare({ cb, run, ack }: Outcome): Promise<EndedState | null> {
    const now = this.clock.now();
    try {
      await this.outcomes.endSucceededTogether(this.dataSource.manager, [succeededAttempt(cb, run.tenantId, now, null, ack)], { from: OUTCOME_FROM, now, expectAll: true });
      return { state: 'SUCCEEDED' };
    } catch (err) {
      if (err instanceof NotAllSucceededError) return null;
      throw err;
    }
  }

  private endTogether(items: Outcome[], expectAll: boolean): Promise<Array<EndedState | null>> {
    const now = this.clock.now();
    const bare = expectAll && items.every(isBare);
    return inTransaction(
      this.dataSource,
      async (em) => {
        const moved = await this.outcomes.endSucceededTogether(
          em,
          items.map(({ cb, run, ack }) => succeededAttempt(cb, run.tenantId, now, run.shardOf ?? null, ack)),
          { from: OUTCOME_FROM, now, expectAll },
        );
        const out: Array<EndedState | null> = [];
        for (const item of items) {
          // An attempt listed twice (the same callback twice in one batch) moved once: the first one's.
          if (moved.get(item.cb.runId) !== item.cb.attempt) {
            out.push(null);
            continue;
          }
          moved.delete(item.cb.runId);
          await this.store(em, item.cb, item.run, now);
          out.push({ state: 'SUCCEEDED' });
        }
        return out;
      },
      bare ? {} : { isolation: FOLLOW_UP_ISOLATION },
    );
  }

  /** Log lines and business alarms of a callback whose attempt is live (same transaction). */
  private async store(em: EntityManager, cb: RunCallback, run: RunAttemptRow | null, now: number): Promise<void> {
    if (cb.logs?.length) {
      await appendRunLogs(em, { tenantId: cb.tenantId, runId: cb.runId, attempt: cb.attempt, lines: cb.logs, maxPerRun: MAX_LOG_LINES_PER_RUN, now });
    }
    for (const alarm of cb.alarms ?? []) {
      await this.alarms.raise(em, {
        tenantId: cb.tenantId,
        type: 'BUSINESS',
        severity: alarm.severity,
        taskId: run?.taskId ?? null,
        runId: cb.runId,
        executorId: run?.executorId ?? null,
        message: alarm.message,
        data: businessAlarmData(cb.attempt, alarm),
        alarmTypes: run?.alarmTypes ?? null,
        silenceMs: run?.alarmSilenceMs,
        now,
        ...(alarm.id !== undefined ? { uid: alarm.id } : {}),
      });
    }
  }

  private stale(cb: RunCallback, state: RunState | null, reason: 'STALE' | 'UNKNOWN_RUN'): CallbackReply {
    return { status: 409, body: { accepted: false, runId: cb.runId, attempt: cb.attempt, reason, state } };
  }
}

/**
 * States in which an attempt's outcome is taken. Besides DISPATCHED/ACCEPTED: a dead engine's
 * DISPATCHED runs go back to PENDING at takeover (and may be CLAIMED again by a survivor), and a
 * dispatch that got no answer waits in RETRY_WAIT — the executor may have run the attempt all the
 * same, and its callback is the only report of it (see RUN_TRANSITIONS in libs/domain). The
 * attempt must match, so a late callback of an earlier attempt still ends nothing.
 */
const OUTCOME_FROM: readonly RunState[] = ['DISPATCHED', 'ACCEPTED', 'PENDING', 'CLAIMED', 'RETRY_WAIT'];

/** The callback is of a withdrawn prepared fire's attempt (its withdrawal and CANCELLED are written together): its word may settle the withdrawal. */
function isWithdrawnAttempt(run: RunAttemptRow, cb: RunCallback): boolean {
  return run.state === 'CANCELLED' && run.withdrawal !== null && run.attempt === cb.attempt;
}

/**
 * The stale outcome may be the report of an attempt Baton ended while it ran (keepReportOfEnded
 * checks which, in its write): the run cancelled or timed out at that attempt, or an earlier
 * attempt's ABORTED — what an executor answers to the abort of an attempt timed out and retried.
 * Other outcomes of earlier attempts are copies of reports taken already (a storm of failing
 * runs sends many) and are not looked into.
 */
function mayReportEndedAttempt(run: RunAttemptRow, cb: RunCallback): boolean {
  if (run.attempt === cb.attempt) return run.state === 'CANCELLED' || run.state === 'TIMED_OUT';
  return cb.attempt < run.attempt && cb.outcome === 'ABORTED';
}

/**
 * The `data` of a business alarm's row and message: `{ attempt, at, data? }`. The executor SDK
 * builds the same for the alarms it publishes itself (libs/executor-sdk/src/direct-alarms.ts).
 */
export function businessAlarmData(attempt: number, alarm: BusinessAlarm): JsonValue {
  return { attempt, at: alarm.at, ...(alarm.data === undefined ? {} : { data: alarm.data }) };
}

function endOf(cb: RunCallback, run: RunAttemptRow): AttemptEnd {
  if (cb.outcome === 'SUCCEEDED') return { to: 'SUCCEEDED', resultJson: resultJson(cb.result) };
  if (cb.outcome === 'ABORTED') {
    const why = cb.abortReason ?? 'unknown reason';
    // Sent ahead and never started (the executor lost contact with the engines): sent again, not an attempt spent.
    if (why === 'NO_CONTACT') return { to: HANDED_BACK, error: `handed back by executor ${run.executorUrl ?? run.executorId ?? '?'}, which never started it: ${cb.error ?? 'it had lost contact with the engines'}` };
    const error = `aborted (${why})${cb.error ? `: ${cb.error}` : ''}`;
    // The executor stopped the handler at the run's deadline: that is a timeout, not a failure.
    return why === 'DEADLINE' || why === 'TIMEOUT' ? { to: 'TIMED_OUT', error } : { to: 'FAILED', error };
  }
  // retryable false: the handler said retrying cannot help (NonRetryableError).
  return { to: 'FAILED', error: cb.error ?? 'failed (no error message)', ...(cb.retryable === false ? { retry: false } : {}) };
}

function resultJson(result: unknown): string | null {
  if (result === undefined) return null;
  const text = JSON.stringify(result);
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_RESULT_BYTES) return text;
  return JSON.stringify({ truncated: true, bytes, preview: truncateUtf8(text, 1_000) });
}

/** A success with no log lines, no alarms and no fan-out run to settle: its run's UPDATE is all it writes. */
function isBare({ cb, run }: Outcome): boolean {
  return !cb.logs?.length && !cb.alarms?.length && run.shardOf === null;
}

function succeededAttempt(cb: RunCallback, tenantId: string, now: number, shardOf: number | null, ack: AckTimes | null): SucceededAttempt & { shardOf: number | null; tenantId: string } {
  return { runId: cb.runId, attempt: cb.attempt, resultJson: resultJson(cb.result), startedAt: cb.startedAt ?? null, ...endStamp(cb.finishedAt, now), shardOf, tenantId, ack };
}
