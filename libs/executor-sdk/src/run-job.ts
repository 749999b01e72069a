import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@baton/domain';
import type { AbortReason, BusinessAlarm, DispatchRequest, LogLevel, RunCallback } from '@baton/protocol';
import { RunTrace } from './run-trace';
import { RunAbortedError } from './run-aborted-error';
import type { AnyTaskHandler, HandlerContext, RunLogger } from './handler';
import { LogTail, truncateUtf8 } from './log-tail';
import type { ResolvedExecutorOptions, RunLogFields } from './options';
import type { DirectAlarms } from './direct-alarms';
import { messageOf, outcomeOf, type FinalFields, type Settled } from './outcome';
import { SYSTEM_CLOCK, type RunClock } from './run-clock';

/** The executor options one attempt lives by (the runtime passes all of them). */
export type RunJobOptions = Pick<
  ResolvedExecutorOptions,
  'logTail' | 'echoRunLogs' | 'logger' | 'maxAlarmsPerRun' | 'progressIntervalMs' | 'abortGraceMs' | 'maxResultBytes'
>;

/**
 * How a handler call went: the fields of its final callback, what it returned or threw, and,
 * when it ignored an abort for longer than `abortGraceMs` (reported ABORTED anyway), the
 * promise of its real end (it keeps its pool slot until then).
 */
export interface HandlerRun {
  fields: FinalFields;
  settled: Settled;
  stillRunning?: Promise<Settled>;
}

const SEVERITIES: ReadonlyArray<BusinessAlarm['severity']> = ['INFO', 'WARNING', 'CRITICAL'];

/** `${runId}:${attempt}`: the identity of one attempt. */
export function runKey(runId: number, attempt: number): string {
  return `${runId}:${attempt}`;
}

/**
 * An attempt's deadline on this executor's clock: the request's arrival + its `deadlineInMs`,
 * which the engine counted on its corrected time as the request left. Relative, so an executor
 * whose clock is ahead of the engines' does not abort its handlers early; the transit only makes
 * it later. From an engine that sends no `deadlineInMs` (an older one): its `deadline`, read on
 * this clock.
 */
export function localDeadline(request: DispatchRequest, arrivedAt: number): number {
  return request.deadlineInMs === undefined ? request.deadline : arrivedAt + request.deadlineInMs;
}

/**
 * One accepted attempt: its request, abort state, log tail, alarms and progress, and the
 * throttle of its interim callbacks. The runtime moves it QUEUED → RUNNING → done.
 *
 * Its AbortSignal is made only when something asks for it (the handler reads `ctx.signal`, or
 * sleeps): an AbortSignal and its listeners cost more than a short run's other work, and most
 * runs end unaborted without looking at theirs.
 */
export class RunJob {
  readonly key: string;
  /** When the handler must be done, on this executor's clock (localDeadline): `signal` is aborted with DEADLINE then. */
  readonly deadline: number;
  state: 'QUEUED' | 'RUNNING' = 'QUEUED';
  abortReason?: AbortReason;
  /** Set by abort(): what the signal is (or will be, when made) aborted with. */
  abortError?: RunAbortedError;
  startedAt?: number;
  /** Set once the final callback has been built: nothing more is reported. */
  done = false;
  progress?: number;
  readonly logs: LogTail;
  private alarms: BusinessAlarm[] = [];
  private alarmsDropped = 0;
  /** Direct mode: alarms being published to the broker (they join `alarms` when the broker answered). */
  private readonly publishing = new Set<Promise<void>>();
  private lastInterimAt = 0;
  private interimTimer: unknown = null;
  private interimInFlight: Promise<void> | null = null;
  private interimDirty = false;
  private deadlineTimer: unknown = null;
  private controller: AbortController | null = null;
  /** The abort grace of a running handler (see raceAbortGrace). */
  private onAbort: (() => void) | null = null;
  /** Its spans when the engine sent a sampled traceparent, its passed context when an unsampled one (RunTrace); null: untraced. */
  private readonly trace: RunTrace | null;

  constructor(
    readonly request: DispatchRequest,
    /** When its request arrived (this executor's clock): its deadline counts from then. */
    arrivedAt: number,
    readonly handler: AnyTaskHandler,
    private readonly options: RunJobOptions,
    /** Sends one interim callback (no retry); true when an engine took it. */
    private readonly sendInterim: (callback: RunCallback) => Promise<boolean>,
    private readonly executorId: () => number | undefined,
    /** Direct mode (brokerUrl): where ctx.alarm() publishes first. Null: through the engine only. */
    private readonly direct: DirectAlarms | null = null,
    private readonly clock: RunClock = SYSTEM_CLOCK,
  ) {
    this.key = runKey(request.runId, request.attempt);
    this.deadline = localDeadline(request, arrivedAt);
    this.logs = new LogTail(options.logTail);
    this.trace = request.traceparent === undefined ? null : RunTrace.accept(request);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortError) this.controller.abort(this.abortError);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortError !== undefined;
  }

  /** Aborts the run (first reason wins). False if it was aborted already. */
  abort(reason: AbortReason): boolean {
    if (this.abortError) return false;
    this.abortReason = reason;
    this.abortError = new RunAbortedError(reason);
    this.controller?.abort(this.abortError);
    this.onAbort?.();
    return true;
  }

  /** The fields of the SDK's lines about this run (ExecutorLogger): given when it is traced, none otherwise (`[]` spreads to no argument). */
  logFields(): [RunLogFields] | [] {
    return this.trace ? [{ runId: this.request.runId, attempt: this.request.attempt, ...this.trace.logFields() }] : [];
  }

  /** Starts the deadline timer (aborts with DEADLINE when it passes). */
  armDeadline(): void {
    const ms = this.deadline - this.clock.now();
    if (ms <= 0) {
      this.abort('DEADLINE');
      return;
    }
    // setTimeout's limit is 2^31-1 ms (~24.8 days); beyond that there is no deadline to watch.
    // A timer may fire a millisecond before the wall clock reaches the deadline (timers run on
    // the monotonic clock): re-arming instead of aborting keeps the abort from coming early.
    // That re-arming also lets a far deadline's timer be set to the whole second before it:
    // Node keeps timers of one duration in one list, and the runs of a burst then share a few
    // instead of each adding a list of its own to the timer queue.
    if (ms < 2 ** 31 - 1) this.deadlineTimer = this.clock.setTimeout(() => this.armDeadline(), ms > 1000 ? ms - (ms % 1000) : ms);
  }

  context(): HandlerContext {
    const r = this.request;
    const signal = () => this.signal;
    const log = (level: LogLevel) => (message: string, ...args: unknown[]) => {
      if (this.done) return;
      const line = this.logs.write(level, message, args, this.clock.now());
      this.requestInterim(true);
      if (this.options.echoRunLogs) {
        const sink = level === 'error' ? this.options.logger.error : level === 'warn' ? this.options.logger.warn : this.options.logger.info;
        sink.call(this.options.logger, `[${r.handler} run ${r.runId}#${r.attempt}] ${level}: ${line.message}`, ...this.logFields());
      }
    };
    const logger: RunLogger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
    return {
      params: r.params,
      runId: r.runId,
      attempt: r.attempt,
      taskId: r.taskId,
      taskName: r.taskName,
      handler: r.handler,
      tenantId: r.tenantId,
      scheduledAt: r.scheduledAt,
      deadline: this.deadline,
      parentResults: r.parentResults ?? {},
      flowParams: r.flowParams ?? null,
      shardIndex: r.shardIndex ?? 0,
      shardTotal: r.shardTotal ?? 1,
      traceparent: this.trace?.traceparent,
      get signal() {
        return signal();
      },
      log: logger,
      progress: (percent: number) => {
        if (this.done || typeof percent !== 'number' || Number.isNaN(percent)) return;
        this.progress = Math.min(100, Math.max(0, percent));
        this.requestInterim();
      },
      alarm: (severity, message, data) => this.addAlarm(severity, message, data),
      sleep: (ms: number) => abortableSleep(ms, this.signal, this.clock),
    };
  }

  /**
   * Runs the handler with this attempt's context until it settles, or until it has ignored an
   * abort for `abortGraceMs`, and tells what its final callback says (see outcomeOf).
   */
  async runHandler(): Promise<HandlerRun> {
    const run = async () => this.handler.run(this.context());
    const settled: Promise<Settled> = (this.trace ? this.trace.runHandler(run) : run()).then(
      (value): Settled => ({ kind: 'returned', value }),
      (error): Settled => ({ kind: 'threw', error }),
    );
    const first = await this.raceAbortGrace(settled);
    if (first.kind === 'abandoned') {
      const error = `${messageOf(this.abortError)}; the handler did not stop within ${this.options.abortGraceMs} ms (abortGraceMs)`;
      return { fields: { outcome: 'ABORTED', error }, settled: first, stillRunning: settled };
    }
    return { fields: outcomeOf(first, this.abortError, this.options.maxResultBytes), settled: first };
  }

  /** The handler's settlement, or 'abandoned' when it ignores an abort for `abortGraceMs`. */
  private raceAbortGrace(settled: Promise<Settled>): Promise<Settled> {
    return new Promise((resolve) => {
      let timer: unknown;
      const startGrace = () => (timer = this.clock.setTimeout(() => resolve({ kind: 'abandoned' }), this.options.abortGraceMs));
      if (this.aborted) startGrace();
      else this.onAbort = startGrace;
      void settled.then((s) => {
        this.onAbort = null;
        if (timer !== undefined) this.clock.clearTimeout(timer);
        resolve(s);
      });
    });
  }

  /** The final callback of this attempt, as it is spooled and sent (after settle()). */
  finalCallback(f: FinalFields, finishedAt: number): RunCallback {
    const r = this.request;
    const cb: RunCallback = { runId: r.runId, attempt: r.attempt, tenantId: r.tenantId, outcome: f.outcome };
    // The handler's span names the engine's outcome span's parent; an unsampled run has none to name.
    if (this.trace?.sampled) {
      this.trace.end(f.outcome, f.error);
      cb.traceparent = this.trace.traceparent;
    }
    const executorId = this.executorId();
    if (executorId !== undefined) cb.executorId = executorId;
    if (f.result !== undefined) cb.result = f.result;
    if (f.error !== undefined) cb.error = f.error;
    if (f.retryable === false) cb.retryable = false;
    if (this.startedAt !== undefined) cb.startedAt = this.startedAt;
    cb.finishedAt = finishedAt;
    if (this.progress !== undefined) cb.progress = this.progress;
    const logs = this.logs.lines();
    if (logs.length) cb.logs = logs;
    const alarms = this.undeliveredAlarms();
    if (alarms.length) cb.alarms = alarms;
    if (f.outcome === 'ABORTED') cb.abortReason = this.abortReason ?? 'CANCELLED';
    return cb;
  }

  /**
   * Stops timers and waits for an interim callback in flight (so its alarms are not sent twice)
   * and for direct publishes (so the final callback says which alarms the broker has).
   */
  async settle(): Promise<void> {
    this.done = true;
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    if (this.interimTimer) this.clock.clearTimeout(this.interimTimer);
    this.deadlineTimer = this.interimTimer = null;
    if (this.publishing.size) await Promise.all([...this.publishing]);
    if (this.interimInFlight) await this.interimInFlight;
  }

  /** Alarms not yet taken by an engine in an interim callback. */
  undeliveredAlarms(): BusinessAlarm[] {
    return [...this.alarms];
  }

  /** The interim report now (progress, pending alarms and log lines). */
  interimCallback(): RunCallback {
    const r = this.request;
    const cb: RunCallback = { runId: r.runId, attempt: r.attempt, tenantId: r.tenantId, startedAt: this.startedAt };
    const executorId = this.executorId();
    if (executorId !== undefined) cb.executorId = executorId;
    if (this.progress !== undefined) cb.progress = this.progress;
    if (this.alarms.length) cb.alarms = [...this.alarms];
    const logs = this.logs.lines();
    if (logs.length) cb.logs = logs;
    return cb;
  }

  private addAlarm(severity: BusinessAlarm['severity'], message: string, data?: JsonValue): void {
    if (this.done) return;
    if (!SEVERITIES.includes(severity)) throw new TypeError(`ctx.alarm: severity must be one of ${SEVERITIES.join(', ')}`);
    if (this.alarms.length + this.publishing.size >= this.options.maxAlarmsPerRun) {
      if (this.alarmsDropped++ === 0) this.logs.write('warn', `[baton] more than ${this.options.maxAlarmsPerRun} alarms in this run: further alarms are dropped`, [], this.clock.now());
      return;
    }
    // A stable id from here on: the engine records the alarm once however often a callback carries
    // it, and consumers of the topic drop repeats by it.
    const alarm: BusinessAlarm = { id: randomUUID(), severity, message: truncateUtf8(String(message), 2048), at: this.clock.now() };
    if (data !== undefined) alarm.data = jsonSafe(data);
    if (!this.direct) {
      this.alarms.push(alarm);
      this.requestInterim();
      return;
    }
    // Direct mode: to the broker first; then (published or not) in a callback, so the engine
    // records it — or publishes it, when the broker could not be reached.
    const p: Promise<void> = this.direct
      .publish(this.request, alarm, this.executorId())
      .then((published) => {
        if (published) alarm.published = true;
      })
      .finally(() => {
        this.publishing.delete(p);
        this.alarms.push(alarm);
        this.requestInterim();
      });
    this.publishing.add(p);
  }

  /**
   * Sends an interim callback now, or once a progress period has passed since the last one. For
   * a log line (`forLog`), not before a period into the run either: a short run's lines ride its
   * final callback instead of costing an interim callback each.
   */
  private requestInterim(forLog = false): void {
    if (this.done || this.state !== 'RUNNING') return;
    if (this.interimInFlight) {
      this.interimDirty = true;
      return;
    }
    if (this.interimTimer) return;
    const since = forLog ? Math.max(this.lastInterimAt, this.startedAt ?? 0) : this.lastInterimAt;
    const wait = since + this.options.progressIntervalMs - this.clock.now();
    if (wait <= 0) this.sendInterimNow();
    else this.interimTimer = this.clock.setTimeout(() => ((this.interimTimer = null), this.sendInterimNow()), wait);
  }

  private sendInterimNow(): void {
    if (this.done) return;
    const logsUpTo = this.logs.mark;
    const cb = this.interimCallback();
    this.lastInterimAt = this.clock.now();
    this.interimInFlight = this.sendInterim(cb)
      .then((taken) => {
        if (!taken) return;
        if (cb.alarms) this.alarms = this.alarms.filter((a) => !cb.alarms!.includes(a));
        this.logs.delivered(logsUpTo);
      })
      .catch(() => undefined)
      .finally(() => {
        this.interimInFlight = null;
        if (this.interimDirty) {
          this.interimDirty = false;
          this.requestInterim();
        }
      });
  }
}

/** A JSON copy of `value` (drops what JSON cannot carry); null if it cannot be serialised. */
function jsonSafe(value: unknown): JsonValue {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as JsonValue);
  } catch {
    return null;
  }
}

/** Resolves after `ms`, or rejects with `signal.reason` when the signal aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal, clock: RunClock = SYSTEM_CLOCK): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
