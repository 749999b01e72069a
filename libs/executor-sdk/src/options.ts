import { resolve } from 'node:path';
import { checkTopicPrefix, DEFAULT_ALARM_TOPIC_PREFIX, parseBrokerUrl, type AlarmBus } from '@baton/messaging';
import { DEFAULT_MAX_SKEW_MS, MAX_ALARMS_PER_CALLBACK, MAX_RESULT_BYTES } from '@baton/protocol';
import type { AnyTaskHandler } from './handler';
import { SYSTEM_CLOCK, type RunClock } from './run-clock';

/** Where the SDK reports its own trouble (not the runs' logs). `console` by default. */
/**
 * Where the SDK writes its own lines (default `console`). `fields`: given with a line about a
 * traced run — `runId`, `attempt`, and the run's `trace_id` and `span_id` (its handler span; for
 * a run left out of sampling, the context the engines passed on) — so
 * a structured logger can put them on the line (`(m, f) => pino.info(f ?? {}, m)`) and the line
 * joins the trace; `console` prints them after the message.
 */
export interface ExecutorLogger {
  info(message: string, fields?: RunLogFields): void;
  warn(message: string, fields?: RunLogFields): void;
  error(message: string, fields?: RunLogFields): void;
}

/** The fields of an SDK line about a traced run (ExecutorLogger). */
export interface RunLogFields {
  runId: number;
  attempt: number;
  trace_id: string;
  span_id: string;
}

/** Options of an executor (ExecutorRuntime, createExecutorServer, ExecutorModule.forRoot). */
export interface ExecutorOptions {
  /** The tenant this executor serves (engines sign requests for it). Required. */
  tenantId: string;
  /** The tenant's executor secret: signs callbacks/heartbeats, verifies engine requests. Required. */
  secret: string;
  /** Application name, reported in heartbeats (executors of one app form a pool). Letters, digits, `.`, `_`, `-`. Required. */
  app: string;
  /** The handlers this executor runs. Names must be unique. Required. */
  handlers: readonly AnyTaskHandler[];
  /**
   * Engine base URLs (e.g. `http://engine-1:8090`) for heartbeats and callbacks. Tried in order;
   * the last one that answered is tried first next time; all engines are equivalent. Callbacks
   * first try the `callbackUrls` of the dispatch, then these. Required, at least one.
   */
  engineUrls: readonly string[];
  /**
   * The base URL engines call (`{publicUrl}/baton/runs`). Default: the plain server's bound URL
   * (`http://{host}:{port}`); with ExecutorModule, the Nest app's URL once it listens.
   */
  publicUrl?: string;
  /** Plain server only: address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Plain server only: port to listen on. Default `0` (an ephemeral port; see the bound URL). */
  port?: number;
  /**
   * Handlers running at once (the pool size; reported as `capacity`). Default 16: handlers are
   * mostly short calls to other services, waiting, not computing (docs/BENCHMARKS.md, executor defaults).
   */
  concurrency?: number;
  /**
   * Accepted runs that may wait for a pool slot (runs sent ahead of their instant wait here too);
   * beyond pool + queue a dispatch gets 429 BUSY. Default 1000: a 1,000-run instant is sent ahead
   * whole to two executors, not held back in the engines. They wait a line per task, and a free slot
   * goes to the lines in turn: one task's backlog here does not stand before another task's run.
   */
  queueLimit?: number;
  /** Heartbeat period (ms). An engine's ack `intervalMs` overrides it. Default 3000. */
  heartbeatIntervalMs?: number;
  /**
   * Append-only JSONL file where final callbacks are written before the first send and kept
   * until an engine acknowledges them; replayed on start. `false`: memory only (lost on a crash).
   * Default `./.baton/spool-<app>.jsonl` (relative to the working directory); if another live
   * process holds that file, `./.baton/spool-<app>.2.jsonl`, `.3`, … An explicit path that is
   * held by another live process makes `start()` fail.
   */
  spoolFile?: string | false;
  /** Callback retry backoff: exponential with jitter. Defaults: `baseMs` 200, `maxMs` 30 000. */
  callbackRetry?: { baseMs?: number; maxMs?: number };
  /**
   * Most callback requests in flight at once (replays after an outage go out this wide). Each
   * request carries every callback ready when it leaves, up to 100: what ends while requests are
   * out joins the next one. Default 32.
   */
  callbackConcurrency?: number;
  /** Timeout of one request to an engine (callback, heartbeat), ms. Default 10 000. */
  requestTimeoutMs?: number;
  /**
   * A heartbeat or callback an engine has not answered within this also goes to the next engine,
   * that engine is tried after the others for 5 s (again each time it hangs), and the request no
   * longer counts in `callbackConcurrency`, ms: one hanging engine must not keep an executor from
   * being heard (it is DOWN after the engine's BATON_EXECUTOR_DEAD_AFTER_MS, 10 s by default) nor
   * hold its callbacks. Default 1000.
   */
  rerouteAfterMs?: number;
  /** On stop: how long running handlers may take to finish before they are aborted, ms. Default 10 000. */
  shutdownGraceMs?: number;
  /** On stop: how long to keep trying to deliver pending callbacks (the rest stay spooled), ms. Default 5000. */
  shutdownFlushMs?: number;
  /**
   * After a run's signal is aborted, how long its handler may take to return before the
   * ABORTED callback is sent without waiting for it (its pool slot stays taken until it returns), ms. Default 5000.
   */
  abortGraceMs?: number;
  /** Interim (progress/alarm) callbacks of a run go out at most once per this many ms. Default 1000. */
  progressIntervalMs?: number;
  /** Cap of the log tail sent with the final callback. Defaults: 200 lines, 32 768 bytes, 4096 bytes per line. */
  logTail?: { maxLines?: number; maxBytes?: number; maxLineBytes?: number };
  /** Business alarms of a run kept waiting for a callback; more are dropped (with a log line). Default and most 100 (MAX_ALARMS_PER_CALLBACK: what an engine takes from one callback). */
  maxAlarmsPerRun?: number;
  /** Largest JSON result; a bigger one makes the run FAILED with a clear error. Default 64 000 bytes (MAX_RESULT_BYTES: what the engine stores). */
  maxResultBytes?: number;
  /** Largest request body accepted from an engine; bigger → 413. Default 1 048 576 bytes. */
  maxBodyBytes?: number;
  /**
   * How many finished (runId, attempt) pairs are remembered to answer a repeated dispatch with
   * 202 without running the handler again, and for status queries. Default 10 000.
   */
  recentlyFinishedLimit?: number;
  /** Largest accepted distance between a request's signed timestamp and this clock, ms. Default 300 000. */
  maxSkewMs?: number;
  /** Where the SDK reports its own warnings and errors. `false`: silent. Default `console`. */
  logger?: ExecutorLogger | false;
  /** Also write each run's log lines to `logger` (prefixed with the run). Default false. */
  echoRunLogs?: boolean;
  /**
   * Direct alarms: the ActiveMQ STOMP broker(s) (`BATON_BROKER_URL`: `stomp://host:61613`, a comma
   * failover list, or `failover:(…)`). Set: `ctx.alarm()` publishes straight to the tenant's topic
   * `<alarmTopicPrefix><tenantId>` (as in the MTHPT paper) and the engine only records it; when
   * the broker is unreachable the alarm goes through the engine instead. Unset (default): alarms
   * ride the callbacks and the engine publishes them — no broker needed near the executor.
   */
  brokerUrl?: string;
  /** Topic prefix of direct alarms. Default `baton.alarms.` (as the engines'). */
  alarmTopicPrefix?: string;
  /** Direct alarms on this bus instead of one made from `brokerUrl` (owned by the caller). */
  alarmBus?: AlarmBus;
  /**
   * The clock runs are timed on: a run sent ahead's instant, the deadline, `ctx.sleep`, the abort
   * grace, the progress throttle, `startedAt` / `finishedAt`. A test puts a `FakeClock`
   * (`@baton/executor-sdk/testing`) here to move it at will. Signatures are checked against the
   * system clock (the engine's time) whatever this is. Default: the system clock.
   */
  clock?: RunClock;
}

/** ExecutorOptions with every default applied. */
export interface ResolvedExecutorOptions {
  tenantId: string;
  secret: string;
  app: string;
  handlers: readonly AnyTaskHandler[];
  engineUrls: string[];
  publicUrl?: string;
  host: string;
  port: number;
  concurrency: number;
  queueLimit: number;
  heartbeatIntervalMs: number;
  spoolFile: string | false;
  /** True when spoolFile is the default (the runtime may then pick a free numbered variant). */
  spoolFileIsDefault: boolean;
  callbackRetry: { baseMs: number; maxMs: number };
  callbackConcurrency: number;
  requestTimeoutMs: number;
  rerouteAfterMs: number;
  shutdownGraceMs: number;
  shutdownFlushMs: number;
  abortGraceMs: number;
  progressIntervalMs: number;
  logTail: { maxLines: number; maxBytes: number; maxLineBytes: number };
  maxAlarmsPerRun: number;
  maxResultBytes: number;
  maxBodyBytes: number;
  recentlyFinishedLimit: number;
  maxSkewMs: number;
  logger: ExecutorLogger;
  echoRunLogs: boolean;
  /** Null: alarms go through the engine. */
  brokerUrl: string | null;
  alarmTopicPrefix: string;
  alarmBus?: AlarmBus;
  clock: RunClock;
}

export const EXECUTOR_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  concurrency: 16,
  queueLimit: 1000,
  heartbeatIntervalMs: 3000,
  callbackRetry: { baseMs: 200, maxMs: 30_000 },
  callbackConcurrency: 32,
  requestTimeoutMs: 10_000,
  rerouteAfterMs: 1000,
  shutdownGraceMs: 10_000,
  shutdownFlushMs: 5000,
  abortGraceMs: 5000,
  progressIntervalMs: 1000,
  logTail: { maxLines: 200, maxBytes: 32_768, maxLineBytes: 4096 },
  maxAlarmsPerRun: MAX_ALARMS_PER_CALLBACK,
  maxResultBytes: MAX_RESULT_BYTES,
  maxBodyBytes: 1_048_576,
  recentlyFinishedLimit: 10_000,
  maxSkewMs: DEFAULT_MAX_SKEW_MS,
} as const;

const SILENT: ExecutorLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** `./.baton/spool-<app>.jsonl`, absolute. */
export function defaultSpoolFile(app: string): string {
  return resolve('.baton', `spool-${app}.jsonl`);
}

/**
 * An option resolveExecutorOptions refuses. `option` is its name as ExecutorOptions spells it
 * (`concurrency`, `callbackRetry.baseMs`; `engineUrls` for any one of them) and `reason` why,
 * without the value, so that executorOptionsFromEnv can name the variable that gave it instead.
 */
export class ExecutorOptionsError extends Error {
  constructor(
    readonly option: string,
    readonly reason: string,
    /** The message after `executor options: `; default `<option> <reason>`. */
    message = `${option} ${reason}`,
  ) {
    super(`executor options: ${message}`);
    this.name = 'ExecutorOptionsError';
  }
}

/** Strips trailing slashes; checks it is an absolute http(s) URL (`option`: the option it is, `shown`: as named in the message). */
export function normalizeBaseUrl(url: string, option: string, shown = option): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // Reported below.
  }
  const reason = parsed === null ? `"${url}" is not a URL` : parsed.protocol !== 'http:' && parsed.protocol !== 'https:' ? `"${url}" is not an http(s) URL` : null;
  if (reason !== null) throw new ExecutorOptionsError(option, reason, `${shown}: ${reason}`);
  return url.replace(/\/+$/, '');
}

/** The least and most of each integer option: resolveExecutorOptions refuses a value outside, and the executor's variables (EXECUTOR_ENV) say so. */
export const INTEGER_OPTION_RANGES = {
  port: { min: 0, max: 65_535 },
  concurrency: { min: 1 },
  queueLimit: { min: 0 },
  heartbeatIntervalMs: { min: 10 },
  'callbackRetry.baseMs': { min: 1 },
  'callbackRetry.maxMs': { min: 1 },
  callbackConcurrency: { min: 1 },
  requestTimeoutMs: { min: 1 },
  rerouteAfterMs: { min: 1 },
  shutdownGraceMs: { min: 0 },
  shutdownFlushMs: { min: 0 },
  abortGraceMs: { min: 0 },
  progressIntervalMs: { min: 0 },
  'logTail.maxLines': { min: 1 },
  'logTail.maxBytes': { min: 64 },
  'logTail.maxLineBytes': { min: 32 },
  maxAlarmsPerRun: { min: 0, max: MAX_ALARMS_PER_CALLBACK },
  maxResultBytes: { min: 16 },
  maxBodyBytes: { min: 1024 },
  recentlyFinishedLimit: { min: 1 },
  maxSkewMs: { min: 1 },
} as const satisfies Record<string, { min: number; max?: number }>;

export type IntegerOption = keyof typeof INTEGER_OPTION_RANGES;

/** What an integer option must be: `must be an integer ≥ 1` (and `≤ max` when it has one). */
export function integerRule(name: IntegerOption): string {
  const { min, max }: { min: number; max?: number } = INTEGER_OPTION_RANGES[name];
  return `must be an integer ≥ ${min}${max === undefined ? '' : ` and ≤ ${max}`}`;
}

function int(value: number | undefined, fallback: number, name: IntegerOption): number {
  const v = value ?? fallback;
  const { min, max = Infinity }: { min: number; max?: number } = INTEGER_OPTION_RANGES[name];
  if (!Number.isInteger(v) || v < min || v > max) throw new ExecutorOptionsError(name, integerRule(name), `${name} ${integerRule(name)} (got ${String(value)})`);
  return v;
}

/** Checks the options and applies the defaults; throws an ExecutorOptionsError naming the bad option. */
export function resolveExecutorOptions(options: ExecutorOptions): ResolvedExecutorOptions {
  const d = EXECUTOR_DEFAULTS;
  if (!options || typeof options !== 'object') throw new Error('executor options: an options object is required');
  for (const key of ['tenantId', 'secret', 'app'] as const) {
    if (typeof options[key] !== 'string' || !options[key].trim()) throw new ExecutorOptionsError(key, 'is required (a non-empty string)');
  }
  const appChars = 'may only contain letters, digits, ".", "_" and "-"';
  if (!/^[A-Za-z0-9._-]+$/.test(options.app)) throw new ExecutorOptionsError('app', appChars, `app "${options.app}" ${appChars}`);
  if (!Array.isArray(options.handlers)) throw new ExecutorOptionsError('handlers', 'is required (an array of handlers)');
  const names = new Set<string>();
  for (const h of options.handlers) {
    if (!h || typeof h.name !== 'string' || typeof h.run !== 'function') throw new ExecutorOptionsError('handlers', 'each need a name and a run function (use defineHandler)', 'each handler needs a name and a run function (use defineHandler)');
    if (names.has(h.name)) throw new ExecutorOptionsError('handlers', `has two named "${h.name}"`, `two handlers are named "${h.name}"`);
    names.add(h.name);
  }
  if (!Array.isArray(options.engineUrls) || options.engineUrls.length === 0) throw new ExecutorOptionsError('engineUrls', 'is required (at least one engine base URL)');
  const engineUrls = [...new Set(options.engineUrls.map((u, i) => normalizeBaseUrl(u, 'engineUrls', `engineUrls[${i}]`)))];
  const logTail = {
    maxLines: int(options.logTail?.maxLines, d.logTail.maxLines, 'logTail.maxLines'),
    maxBytes: int(options.logTail?.maxBytes, d.logTail.maxBytes, 'logTail.maxBytes'),
    maxLineBytes: int(options.logTail?.maxLineBytes, d.logTail.maxLineBytes, 'logTail.maxLineBytes'),
  };
  const callbackRetry = {
    baseMs: int(options.callbackRetry?.baseMs, d.callbackRetry.baseMs, 'callbackRetry.baseMs'),
    maxMs: int(options.callbackRetry?.maxMs, d.callbackRetry.maxMs, 'callbackRetry.maxMs'),
  };
  const spoolFileIsDefault = options.spoolFile === undefined;
  const spoolFile = options.spoolFile === false ? false : options.spoolFile ? resolve(options.spoolFile) : defaultSpoolFile(options.app);
  return {
    tenantId: options.tenantId,
    secret: options.secret,
    app: options.app,
    handlers: options.handlers,
    engineUrls,
    publicUrl: options.publicUrl ? normalizeBaseUrl(options.publicUrl, 'publicUrl') : undefined,
    host: options.host ?? d.host,
    port: int(options.port, d.port, 'port'),
    concurrency: int(options.concurrency, d.concurrency, 'concurrency'),
    queueLimit: int(options.queueLimit, d.queueLimit, 'queueLimit'),
    heartbeatIntervalMs: int(options.heartbeatIntervalMs, d.heartbeatIntervalMs, 'heartbeatIntervalMs'),
    spoolFile,
    spoolFileIsDefault,
    callbackRetry,
    callbackConcurrency: int(options.callbackConcurrency, d.callbackConcurrency, 'callbackConcurrency'),
    requestTimeoutMs: int(options.requestTimeoutMs, d.requestTimeoutMs, 'requestTimeoutMs'),
    rerouteAfterMs: int(options.rerouteAfterMs, d.rerouteAfterMs, 'rerouteAfterMs'),
    shutdownGraceMs: int(options.shutdownGraceMs, d.shutdownGraceMs, 'shutdownGraceMs'),
    shutdownFlushMs: int(options.shutdownFlushMs, d.shutdownFlushMs, 'shutdownFlushMs'),
    abortGraceMs: int(options.abortGraceMs, d.abortGraceMs, 'abortGraceMs'),
    progressIntervalMs: int(options.progressIntervalMs, d.progressIntervalMs, 'progressIntervalMs'),
    logTail,
    maxAlarmsPerRun: int(options.maxAlarmsPerRun, d.maxAlarmsPerRun, 'maxAlarmsPerRun'),
    maxResultBytes: int(options.maxResultBytes, d.maxResultBytes, 'maxResultBytes'),
    maxBodyBytes: int(options.maxBodyBytes, d.maxBodyBytes, 'maxBodyBytes'),
    recentlyFinishedLimit: int(options.recentlyFinishedLimit, d.recentlyFinishedLimit, 'recentlyFinishedLimit'),
    maxSkewMs: int(options.maxSkewMs, d.maxSkewMs, 'maxSkewMs'),
    logger: options.logger === false ? SILENT : (options.logger ?? console),
    echoRunLogs: options.echoRunLogs ?? false,
    brokerUrl: checkedBrokerUrl(options.brokerUrl),
    alarmTopicPrefix: checkedPrefix(options.alarmTopicPrefix),
    ...(options.alarmBus ? { alarmBus: options.alarmBus } : {}),
    clock: options.clock ?? SYSTEM_CLOCK,
  };
}

function checkedBrokerUrl(url: string | undefined): string | null {
  const value = url?.trim();
  if (!value) return null;
  try {
    parseBrokerUrl(value);
  } catch (err) {
    throw new ExecutorOptionsError('brokerUrl', (err as Error).message, `brokerUrl: ${(err as Error).message}`);
  }
  return value;
}

function checkedPrefix(prefix: string | undefined): string {
  try {
    return checkTopicPrefix(prefix?.trim() || DEFAULT_ALARM_TOPIC_PREFIX);
  } catch (err) {
    throw new ExecutorOptionsError('alarmTopicPrefix', (err as Error).message, `alarmTopicPrefix: ${(err as Error).message}`);
  }
}
