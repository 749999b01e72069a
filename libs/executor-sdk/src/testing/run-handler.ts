import type { JsonValue } from '@baton/domain';
import type { AbortReason, BusinessAlarm, DispatchRequest, LogLine, RunCallback } from '@baton/protocol';
import { RunAbortedError } from '../run-aborted-error';
import type { TaskHandler } from '../handler';
import { EXECUTOR_DEFAULTS, type ExecutorOptions } from '../options';
import { SYSTEM_CLOCK, type RunClock } from '../run-clock';
import { RunJob, type RunJobOptions } from '../run-job';

const ABORT_REASONS: readonly AbortReason[] = ['TIMEOUT', 'CANCELLED', 'REPLACED', 'DEADLINE', 'SHUTDOWN'];
/** The default time a test run has before its deadline: an hour. */
const DEFAULT_RUN_MS = 3_600_000;

/** The run a handler gets in a test: what the engine's dispatch would carry, and the executor options that shape the outcome. */
export interface TestRunOptions<P = JsonValue>
  extends Pick<ExecutorOptions, 'abortGraceMs' | 'maxResultBytes' | 'maxAlarmsPerRun' | 'progressIntervalMs' | 'logTail'> {
  /** `ctx.params`. Default null. */
  params?: P;
  /** `ctx.attempt` (2 = the first retry). Default 1. */
  attempt?: number;
  /** `ctx.runId`. Default 1. */
  runId?: number;
  /** `ctx.taskId`. Default 1. */
  taskId?: number;
  /** `ctx.taskName`. Default the handler's name. */
  taskName?: string;
  /** `ctx.tenantId`. Default `test`. */
  tenantId?: string;
  /** `ctx.scheduledAt` (epoch ms). Default the clock's time at the start. */
  scheduledAt?: number;
  /**
   * `ctx.deadline` (epoch ms): when it passes, the signal is aborted with DEADLINE, as the
   * executor does. Must be after the start. Default an hour after the start.
   */
  /** ctx.parentResults: its parents' results in a flow. Default {}. */
  parentResults?: Record<string, JsonValue>;
  /** ctx.flowParams. Default null. */
  flowParams?: JsonValue;
  /** ctx.shardIndex and ctx.shardTotal: run the handler as one shard of a fan-out run. Default: not a shard (0 of 1). */
  shard?: { index: number; total: number };
  deadline?: number;
  /**
   * Aborting it aborts the run, like an abort from the engine: `controller.abort('TIMEOUT')`
   * (or a RunAbortedError) gives that reason; any other reason counts as CANCELLED.
   * `startHandler(…).abort(reason)` does the same.
   */
  signal?: AbortSignal;
  /** The clock of ctx.sleep, the deadline and the abort grace: a FakeClock to move time by hand. Default the system clock. */
  clock?: RunClock;
}

/** How the run ended, as the engine would learn it, and what the handler reported on the way. */
export interface TestRunResult<R = unknown> {
  outcome: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  /** The result as the engine stores it (JSON round trip). SUCCEEDED, or ABORTED if the handler still returned one. */
  result?: R;
  /** FAILED: the error's stack (or why the result was refused); ABORTED: why. */
  error?: string;
  /** FAILED: false when the handler threw a NonRetryableError (the engine will not retry it). True otherwise. */
  retryable: boolean;
  /** ABORTED: the reason (TIMEOUT, CANCELLED, REPLACED, DEADLINE, SHUTDOWN). */
  abortReason?: AbortReason;
  /** What the handler threw, as thrown (undefined when it returned, or ignored an abort past the grace). */
  thrown?: unknown;
  /** Every log line it sent, in interim callbacks (while it ran) or the final one, in order (each part capped). */
  logs: LogLine[];
  /** The last progress the handler reported. */
  progress?: number;
  /** Every business alarm it raised (in interim callbacks or the final one), in order. */
  alarms: BusinessAlarm[];
  /** The interim callbacks, as the executor would have sent them (throttled by progressIntervalMs). */
  interim: RunCallback[];
  /** The final callback, exactly as the executor would send it. */
  callback: RunCallback;
}

/** A handler running in a test. */
export interface TestRun<R = unknown> {
  /** Aborts the run as the engine would (default reason CANCELLED). */
  abort(reason?: AbortReason): void;
  /** Resolves when the final callback is built. */
  readonly done: Promise<TestRunResult<R>>;
}

/**
 * Runs a handler once in memory, with the executor's own context and outcome rules, and
 * resolves with what its final callback would say. No engine, no server, no Nest.
 *
 *     const r = await runHandler(sendInvoices, { params: { month: '2026-10' }, attempt: 2 });
 *     expect(r.outcome).toBe('SUCCEEDED');
 *     expect(r.logs.map((l) => l.message)).toContain('sent 3/3');
 */
export function runHandler<P, R>(handler: TaskHandler<P, R>, options: TestRunOptions<P> = {}): Promise<TestRunResult<R>> {
  return startHandler(handler, options).done;
}

/** runHandler, with a handle to abort the run (or to move a FakeClock) while it runs. */
export function startHandler<P, R>(handler: TaskHandler<P, R>, options: TestRunOptions<P> = {}): TestRun<R> {
  if (!handler || typeof handler.name !== 'string' || typeof handler.run !== 'function') throw new TypeError('startHandler: handler must be a { name, run(ctx) } (see defineHandler)');
  const clock = options.clock ?? SYSTEM_CLOCK;
  const startedAt = clock.now();
  const request: DispatchRequest = {
    runId: options.runId ?? 1,
    attempt: options.attempt ?? 1,
    tenantId: options.tenantId ?? 'test',
    taskId: options.taskId ?? 1,
    taskName: options.taskName ?? handler.name,
    handler: handler.name,
    params: (options.params ?? null) as JsonValue,
    scheduledAt: options.scheduledAt ?? startedAt,
    deadline: options.deadline ?? startedAt + DEFAULT_RUN_MS,
    callbackUrls: [],
    ...(options.parentResults ? { parentResults: options.parentResults } : {}),
    ...(options.flowParams !== undefined ? { flowParams: options.flowParams } : {}),
    ...(options.shard ? { shardIndex: options.shard.index, shardTotal: options.shard.total } : {}),
  };
  if (!Number.isInteger(request.attempt) || request.attempt < 1) throw new RangeError(`startHandler: attempt must be an integer ≥ 1, got ${request.attempt}`);
  if (!(request.deadline > startedAt)) throw new RangeError(`startHandler: deadline ${request.deadline} is not after the start (${startedAt})`);
  const interim: RunCallback[] = [];
  const jobOptions: RunJobOptions = {
    abortGraceMs: options.abortGraceMs ?? EXECUTOR_DEFAULTS.abortGraceMs,
    maxResultBytes: options.maxResultBytes ?? EXECUTOR_DEFAULTS.maxResultBytes,
    maxAlarmsPerRun: options.maxAlarmsPerRun ?? EXECUTOR_DEFAULTS.maxAlarmsPerRun,
    progressIntervalMs: options.progressIntervalMs ?? EXECUTOR_DEFAULTS.progressIntervalMs,
    logTail: { ...EXECUTOR_DEFAULTS.logTail, ...options.logTail },
    echoRunLogs: false,
    logger: console,
  };
  // An engine that takes every interim callback: its alarms are then not repeated in the final one.
  const takeInterim = async (cb: RunCallback) => (interim.push(structuredClone(cb)), true);
  const job = new RunJob(request, startedAt, handler, jobOptions, takeInterim, () => undefined, null, clock);
  const abort = (reason: AbortReason = 'CANCELLED') => void job.abort(reason);
  const onAbort = () => abort(reasonOf(options.signal!.reason));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  job.state = 'RUNNING';
  job.startedAt = startedAt;
  job.armDeadline();
  if (options.signal?.aborted) abort(reasonOf(options.signal.reason));
  const done = (async (): Promise<TestRunResult<R>> => {
    const { fields, settled } = await job.runHandler();
    options.signal?.removeEventListener('abort', onAbort);
    await job.settle();
    const callback = job.finalCallback(fields, clock.now());
    const result: TestRunResult<R> = {
      outcome: fields.outcome,
      retryable: fields.retryable !== false,
      logs: [...interim.flatMap((cb) => cb.logs ?? []), ...(callback.logs ?? [])],
      alarms: [...interim.flatMap((cb) => cb.alarms ?? []), ...(callback.alarms ?? [])],
      interim,
      callback,
    };
    if (callback.result !== undefined) result.result = callback.result as R;
    if (callback.error !== undefined) result.error = callback.error;
    if (callback.abortReason !== undefined) result.abortReason = callback.abortReason;
    if (callback.progress !== undefined) result.progress = callback.progress;
    if (settled.kind === 'threw') result.thrown = settled.error;
    return result;
  })();
  return { abort, done };
}

function reasonOf(reason: unknown): AbortReason {
  if (reason instanceof RunAbortedError) return reason.reason;
  return ABORT_REASONS.includes(reason as AbortReason) ? (reason as AbortReason) : 'CANCELLED';
}
