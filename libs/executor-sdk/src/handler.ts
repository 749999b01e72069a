import type { JsonValue } from '@baton/domain';
import type { BusinessAlarm } from '@baton/protocol';

/** Writes a line to the run's log. Arguments are formatted like `console.log` (util.format). */
export type RunLogFn = (message: string, ...args: unknown[]) => void;

/** The run's logger: its lines ride the final callback (the last ones, see `logTail` options). */
export interface RunLogger {
  debug: RunLogFn;
  info: RunLogFn;
  warn: RunLogFn;
  error: RunLogFn;
}

/** What a handler gets for one attempt of a run. */
export interface HandlerContext<P = JsonValue> {
  /** The task's parameters, as configured in the console (JSON). */
  readonly params: P;
  readonly runId: number;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
  readonly taskId: number;
  readonly taskName: string;
  /** The handler name the run was dispatched to. */
  readonly handler: string;
  readonly tenantId: string;
  /** Nominal fire time (epoch ms). */
  readonly scheduledAt: number;
  /**
   * The handler must be done by then (epoch ms, on this executor's clock); `signal` is aborted
   * when it passes. It is the dispatch's arrival + the time the engine gave the run then
   * (`deadlineInMs`), not the engine's `deadline` itself: on a machine whose clock is ahead of
   * the engines', the engine's instant would come early here. (From an older engine that does not
   * send the time left: the engine's `deadline`.)
   */
  readonly deadline: number;
  /**
   * In a flow: the results of this run's parent tasks in the flow, by task name (successful
   * parents only; the largest replaced by `{ truncated: true, bytes }` beyond 64 KB in all).
   * `{}` for a run no parent fired.
   */
  readonly parentResults: Readonly<Record<string, JsonValue>>;
  /** Params of the flow this run belongs to (given when its root was triggered), or null. */
  readonly flowParams: JsonValue;
  /**
   * A BROADCAST or SHARDED task's run is split into shards, one run each: this one's index,
   * 0 … shardTotal − 1 (take the items where `hash(item) % shardTotal === shardIndex`). 0 for a
   * run that is not a shard.
   */
  readonly shardIndex: number;
  /** How many shards the run was split into; 1 for a run that is not a shard. */
  readonly shardTotal: number;
  /**
   * The W3C traceparent of this run's handler span when the engines trace and sampled the run
   * (docs/OPERATIONS.md, "Tracing"); for a run left out of sampling, the caller's context the
   * engines passed on (sampled=0), if any; undefined otherwise. With OpenTelemetry set up in your
   * service, a sampled run's handler span is also the active one inside the handler: your spans
   * nest under it without this.
   */
  readonly traceparent?: string;
  /**
   * Aborted when the engine asks for an abort (timeout, cancel, replace), when `deadline` passes,
   * and when the executor shuts down and its grace expires. `signal.reason` is a RunAbortedError.
   * Pass it on (fetch, timers, streams) or check it between steps; a handler that ignores it is
   * reported ABORTED after the executor's `abortGraceMs` anyway, but keeps its pool slot until it returns.
   */
  readonly signal: AbortSignal;
  readonly log: RunLogger;
  /** Reports progress, 0–100 (clamped). Sent to the engine as a throttled interim callback. */
  progress(percent: number): void;
  /**
   * Raises a business alarm (type BUSINESS) on the tenant's alarm topic, with a stable id. By
   * default it rides an interim callback (throttled) or the final one, whichever is acknowledged
   * first, and the engine publishes it. With the executor option `brokerUrl` (BATON_BROKER_URL) it
   * is also published straight to the broker first, for consumers of the topic; the consoles show
   * the engine's copy (they push only alarms the database has).
   */
  alarm(severity: BusinessAlarm['severity'], message: string, data?: JsonValue): void;
  /** Waits `ms`; rejects with `signal.reason` as soon as the run is aborted. */
  sleep(ms: number): Promise<void>;
}

/**
 * A named piece of business work. `run` resolves with the result (JSON-serialisable, or
 * undefined) → SUCCEEDED; throws → FAILED (the error's stack is the callback's `error`).
 */
export interface TaskHandler<P = JsonValue, R = unknown> {
  /** The name tasks refer to (`handler` in the console). Unique within an executor. */
  readonly name: string;
  /**
   * A JSON schema (draft 2020-12 / 07) of `params`, sent with the heartbeat: the console shows it
   * in the task editor and refuses to save a task of this handler whose params do not match.
   * Optional (default: none, no check); at most 16 KB serialised — a larger one is not sent.
   */
  readonly paramsSchema?: JsonValue;
  run(ctx: HandlerContext<P>): Promise<R> | R;
}

/** What defineHandler takes besides the name and the function. */
export interface HandlerOptions {
  /** TaskHandler.paramsSchema. Default: none. */
  paramsSchema?: JsonValue;
}

/** Any handler, whatever its params/result types (for handler lists). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTaskHandler = TaskHandler<any, unknown>;

/**
 * Defines a handler from a function.
 *
 *     export const resize = defineHandler<{ url: string }>('resize-image', async (ctx) => {
 *       const res = await fetch(ctx.params.url, { signal: ctx.signal });
 *       ctx.progress(50);
 *       return { bytes: (await res.arrayBuffer()).byteLength };
 *     });
 */
export function defineHandler<P = JsonValue, R = unknown>(name: string, run: (ctx: HandlerContext<P>) => Promise<R> | R, options: HandlerOptions = {}): TaskHandler<P, R> {
  if (typeof name !== 'string' || !name.trim()) throw new Error('defineHandler: name must be a non-empty string');
  if (typeof run !== 'function') throw new Error(`defineHandler("${name}"): run must be a function`);
  const { paramsSchema } = options;
  checkParamsSchema(`defineHandler("${name}")`, paramsSchema);
  return paramsSchema === undefined ? { name, run } : { name, run, paramsSchema };
}

/**
 * Throws, naming `owner`, unless `schema` is absent or a JSON object: an engine refuses a
 * heartbeat carrying anything else, which would keep the executor from registering at all.
 */
export function checkParamsSchema(owner: string, schema: unknown): void {
  if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    throw new Error(`${owner}: paramsSchema must be a JSON schema object`);
  }
}
