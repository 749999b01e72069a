/**
 * The engine ⇄ executor wire protocol (documented for other languages in openapi.yaml).
 *
 * Engine → executor:
 *   POST {executorUrl}/baton/runs             DispatchRequest  → 202 DispatchAck | 429 busy | 4xx rejected
 *   POST {executorUrl}/baton/runs/{id}/abort  AbortRequest     → 202 AbortAck | 404 AbortAck (not running there)
 *   GET  {executorUrl}/baton/runs/{id}        (empty body)     → 200 RunStatusReport (what the executor knows of the run)
 * Executor → engine (any engine node; all are equivalent):
 *   POST {engineUrl}/baton/callbacks          RunCallback      → 200 | 401 bad signature | 409 stale
 *   POST {engineUrl}/baton/executors/heartbeat ExecutorHeartbeat → 200 ExecutorHeartbeatAck
 * Every error answer of an engine is an ErrorBody (error-body.ts), as the console's are.
 * Every request is signed (see signing.ts). The signed path is the protocol path as listed in
 * PATHS (e.g. `/baton/runs/42/abort`): without the base path of the executor/engine URL and
 * without a query string, so a reverse proxy or a host app's route prefix does not break it.
 * A GET is signed over the empty body.
 */
import type { JsonValue } from '@baton/domain';
import { SIGNATURE_HEADERS } from './signing';
import type { WakeRunRow } from './wake-rows';

/**
 * The version an executor states in its heartbeats. 2 adds `startInMs` to a dispatch: engines send
 * a run ahead of its instant only to executors of version 2 or later, which hold it until then.
 * 3 adds the sent-ahead lease: such an executor starts a run it holds only while its contact with
 * the engines is fresh (sentAheadLeaseMs), and drops what it holds when an ack's `handBacks`
 * changes; so engines hand back the runs a silent executor of version 3 provably never started.
 */
export const PROTOCOL_VERSION = 3;

/** How many heartbeat intervals a run sent ahead may be started after the executor last heard from an engine (sentAheadLeaseMs). */
export const SENT_AHEAD_LEASE_INTERVALS = 2;

/**
 * The sent-ahead lease (protocol 3): an executor starts a run it held for its instant only if the
 * last heartbeat an engine answered (2xx) was sent no more than this before that instant — by the
 * executor's clock, counted from when the heartbeat left (the start of its round, before any
 * engine was tried), with that answer's `intervalMs`. Otherwise it never starts it: it ends it
 * ABORTED with abortReason NO_CONTACT. Engines count on it: the runs held by an executor silent
 * since `heartbeat_at` whose instants come later than `heartbeat_at` + this lease cannot have
 * started there, and are dispatched again (docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and
 * contact").
 */
export function sentAheadLeaseMs(intervalMs: number): number {
  return SENT_AHEAD_LEASE_INTERVALS * intervalMs;
}

/** The longest `startInMs` an executor accepts: a run is never sent further ahead than this. */
export const MAX_START_IN_MS = 60_000;

/** Largest result a callback may carry, as serialised JSON in bytes: what the engine can store (a TEXT column). */
export const MAX_RESULT_BYTES = 64_000;

/**
 * Most business alarms one callback may carry; the engine stores no more of it. The SDKs hold at
 * most this many alarms of a run waiting (their maxAlarmsPerRun, default and bound), so all they
 * send in one callback is stored: the bound was 20, and a handler's 21st to 100th alarms vanished.
 */
export const MAX_ALARMS_PER_CALLBACK = 100;

/** The most attempts an ExecutorHeartbeat lists in `active`; with more, the list is omitted. */
export const MAX_HEARTBEAT_ACTIVE = 1000;

export const PATHS = {
  dispatch: '/baton/runs',
  /** Several runs for one executor in one request (DispatchBatch); the executor answers each one. */
  dispatchBatch: '/baton/runs/batch',
  abort: (runId: number) => `/baton/runs/${runId}/abort`,
  /** GET: what the executor knows of a run (see RunStatusReport). */
  status: (runId: number) => `/baton/runs/${runId}`,
  callback: '/baton/callbacks',
  /** Several final callbacks in one request (CallbackBatch); engines answer each one. */
  callbackBatch: '/baton/callbacks/batch',
  heartbeat: '/baton/executors/heartbeat',
  /** The console tells the engines of a tenant's group that a run is due before their next poll (WakeRequest). */
  wake: '/baton/wake',
  /** The console tells the engines of a tenant's group that it cancelled runs that were sent (CancelNotice). */
  cancelled: '/baton/cancelled',
} as const;

/**
 * `POST /baton/wake` to an engine, signed with the tenant's executor secret: a run of the signing
 * tenant is due at `dueAt`, sooner than the engine's next claim poll would find it. The engine
 * claims the tenant's due runs at once (204); a run due beyond its look-ahead is left to the poll.
 * A hint only: it changes nothing but when the engine looks, and which runs it looks at first.
 */
export interface WakeRequest {
  /** When the run is due, epoch ms. */
  dueAt: number;
  /**
   * The runs due (at most MAX_WAKE_RUNS ids), when the console knows them: the engine claims them
   * by id, only the signing tenant's that are still claimable. Absent or empty, it claims the
   * tenant's due runs in a claim turn.
   */
  runIds?: number[];
  /**
   * Those runs' rows and their tasks' dispatch fields as the console committed them (WakeRunRow),
   * each of a run in `runIds`: the engine takes them instead of reading them back, with
   * WAKE_ROWS_HEADER only (400 otherwise). Absent: the engine reads the runs by id.
   */
  runs?: WakeRunRow[];
}

/**
 * The most run ids one WakeRequest names; a wake-up about more names none. A batch submission's
 * runs (up to 1,000 a request) are named in one: the engine reads them by id in one statement and
 * marks them in one, where a claim turn writes each run once more (CLAIMED). With 100, the
 * console's wake-up for a larger batch was refused and its runs waited for a poll.
 */
export const MAX_WAKE_RUNS = 1_000;

/** The most run ids one CancelNotice carries. */
export const MAX_CANCEL_NOTICE_RUNS = 1000;

/**
 * `POST /baton/cancelled` to an engine, signed with the tenant's executor secret: the console has
 * cancelled these runs of the signing tenant, and they had been sent to an executor (a run sent
 * ahead of its instant waits there for it). The engine asks each one's executor to abort it
 * (AbortRequest, reason CANCELLED): one waiting for its instant is dropped, a running one gets its
 * signal. 204. A hint: a run that is not CANCELLED, or was never sent, is passed over.
 */
export interface CancelNotice {
  /** 1 to MAX_CANCEL_NOTICE_RUNS run ids. */
  runIds: number[];
}

/** Asks an executor to start one attempt of a run. */
export interface DispatchRequest {
  runId: number;
  attempt: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  handler: string;
  params: JsonValue;
  /** Nominal fire time (epoch ms). */
  scheduledAt: number;
  /** The handler must be done by then (epoch ms, the engines' corrected time); the engine aborts the run after it. */
  deadline: number;
  /**
   * The time left until `deadline` as the request left (ms, ≥ 0), counted by the engine on its
   * corrected time: an executor sets its deadline to the request's arrival + this, on its own
   * clock, so one whose clock is ahead does not abort its handlers early (counted from the
   * arrival, its deadline is later than the engine's by the transit only). Absent (older engines):
   * the executor checks `deadline` on its own clock.
   */
  deadlineInMs?: number;
  /** Engine callback base URLs, first preferred; any of them accepts the callback. */
  callbackUrls: string[];
  /**
   * A run fired by its parents in a flow: each parent task's result in that flow, by task name
   * (successful parents only; at most 64 KB, the largest results replaced by
   * `{ truncated: true, bytes }`). Absent for other runs.
   */
  parentResults?: Record<string, JsonValue>;
  /** Params of the flow this run belongs to, given when its root was triggered. Absent when none. */
  flowParams?: JsonValue;
  /** A shard of a BROADCAST or SHARDED task's run: its index, 0 to shardTotal − 1. Absent for other runs (read as 0). */
  shardIndex?: number;
  /** A shard's number of shards in its run. Absent for other runs (read as 1). */
  shardTotal?: number;
  /**
   * A run sent ahead of its instant (protocol 2): start the handler this many ms after the request
   * arrived, not before. Until then the run waits on the executor as a queued one does (it takes a
   * queue place, an abort drops it, `GET /baton/runs/{id}` says QUEUED). Relative, so the two
   * machines' clocks need not agree. Absent or 0: start at once. At most MAX_START_IN_MS.
   */
  startInMs?: number;
  /**
   * The run's W3C trace context (`00-<trace id>-<span id>-<flags>`): the engine's dispatch span,
   * when the engines trace (docs/OPERATIONS.md, "Tracing"). An executor opens the handler's span
   * under it and sends its own back in the callback's `traceparent`. Per run, not a header only:
   * a DispatchBatch carries runs of several traces (a single POST also carries it as the
   * `traceparent` header). For a run the engines left out of sampling, the caller's context
   * (sampled flag 0) when a caller sent one: no span is made for it, it is only passed on. Absent:
   * untraced, or left out with no caller's context.
   */
  traceparent?: string;
}

/** 202: the work is on the executor's pool. */
export interface DispatchAck {
  accepted: true;
  runId: number;
  attempt: number;
  /**
   * How many more runs this executor would take now: free workers plus free queue places, after
   * this one (concurrency + queueLimit − running − queued). Engines send no more than this
   * until the next answer (credit-based flow control), so a burst waits in the engines instead
   * of being refused with 429. Absent (older executors): the engines do not limit.
   */
  credit?: number;
  /** Orders the executor's credit figures (acks and callbacks): an engine keeps the one with the highest. Increasing across restarts (microseconds of the executor's clock at least). */
  creditSeq?: number;
}

/**
 * 429 (busy, try another executor) or 4xx/503 (rejected: unknown handler, bad request, bad
 * signature, shutting down). Also the body of every other error answer of an executor.
 * - 400 BAD_REQUEST (`field` names the offending field; `body` for malformed JSON / too large → 413)
 * - 401 UNAUTHORIZED (another tenant: TENANT_MISMATCH_REFUSAL, checked first; missing/bad signature, stale timestamp)
 * - 404 UNKNOWN_HANDLER, 429 BUSY, 503 SHUTTING_DOWN
 */
export interface DispatchRefusal {
  accepted: false;
  reason: 'BUSY' | 'UNKNOWN_HANDLER' | 'BAD_REQUEST' | 'SHUTTING_DOWN' | 'UNAUTHORIZED';
  message: string;
  /** For BAD_REQUEST: the field that is wrong (`body` when the body itself is); for UNAUTHORIZED: `x-baton-tenant` when the request is another tenant's (TENANT_MISMATCH_REFUSAL). */
  field?: string;
}

/**
 * An executor's answer (401) to a request of another tenant — its `x-baton-tenant` not the tenant
 * the executor serves —, checked before the signature: that request is signed with the other
 * tenant's secret, which the executor has not, and "the signature does not match" would send
 * both operators after secrets that are right. `field` names the header, for the engine: no
 * secret of its tenant will do at that URL, which another tenant's executor answers now.
 */
export const TENANT_MISMATCH_REFUSAL: DispatchRefusal = Object.freeze({
  accepted: false,
  reason: 'UNAUTHORIZED',
  field: SIGNATURE_HEADERS.tenant,
  message: `${SIGNATURE_HEADERS.tenant}: this executor serves another tenant`,
});

/** Whether an executor's error answer (body) is TENANT_MISMATCH_REFUSAL's: it serves another tenant. */
export function isTenantMismatch(body: unknown): boolean {
  const refusal = body as Partial<DispatchRefusal> | null;
  return refusal !== null && typeof refusal === 'object' && refusal.accepted === false && refusal.reason === 'UNAUTHORIZED' && refusal.field === SIGNATURE_HEADERS.tenant;
}

/** Why the engine asks for an abort. */
export type AbortRequestReason = 'TIMEOUT' | 'CANCELLED' | 'REPLACED';

export interface AbortRequest {
  runId: number;
  attempt: number;
  reason: AbortRequestReason;
}

/** Where an attempt is on an executor. UNKNOWN: never seen, or forgotten (bounded memory). */
export type ExecutorRunState = 'QUEUED' | 'RUNNING' | 'FINISHED' | 'UNKNOWN';

/**
 * Answer to an AbortRequest: 202 with `aborted: true` when the attempt was queued (dropped
 * without running; its callback says ABORTED) or running (its signal is aborted; the callback
 * follows when the handler stops, or after the executor's abort grace). 404 with
 * `aborted: false` when it is not running there (already FINISHED, or UNKNOWN).
 */
export interface AbortAck {
  aborted: boolean;
  runId: number;
  attempt: number;
  state: ExecutorRunState;
}

/** One attempt of a run as an executor knows it (see RunStatusReport). */
export interface ExecutorAttemptStatus {
  attempt: number;
  state: Exclude<ExecutorRunState, 'UNKNOWN'>;
  outcome?: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  startedAt?: number;
  finishedAt?: number;
  /** FINISHED only: the final callback is not acknowledged yet (still spooled, being retried). */
  callbackPending?: boolean;
}

/** 200 answer to `GET /baton/runs/{id}`: the attempts of that run the executor knows (maybe none). */
export interface RunStatusReport {
  runId: number;
  attempts: ExecutorAttemptStatus[];
}

/**
 * Why an attempt ended ABORTED: an engine AbortRequest reason, its `deadline` passing on the
 * executor (DEADLINE), the executor shutting down before it finished (SHUTDOWN), or a run sent
 * ahead that the executor never started because it had lost contact with the engines (NO_CONTACT:
 * its instant came past the sent-ahead lease, or an ack's `handBacks` changed while it held it).
 * The engine dispatches a NO_CONTACT attempt again as a new attempt that does not count against
 * the task's retries: it never ran.
 */
export type AbortReason = AbortRequestReason | 'DEADLINE' | 'SHUTDOWN' | 'NO_CONTACT';

/** Identifies one attempt. */
export interface RunKey {
  runId: number;
  attempt: number;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  at: number;
  level: LogLevel;
  message: string;
}

/** An alarm raised by business code with `ctx.alarm(...)`; rides the callback to the engine. */
export interface BusinessAlarm {
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
  message: string;
  data?: JsonValue;
  at: number;
  /**
   * The alarm's stable id (a UUID made by the executor; at most 64 of A-Z a-z 0-9 . _ : -): the
   * `id` of its message on the alarm topic. A callback that carries the same alarm again (a retry)
   * does not make a second one. Without it the engine makes one.
   */
  id?: string;
  /**
   * True: the executor already published it straight to the tenant's alarm topic (direct mode,
   * BATON_BROKER_URL at the executor). The engine records and publishes it all the same (its
   * outbox, under the same id): a console pushes to browsers only alarms the database has, so the
   * executor's own message is dropped there, and a consumer of the topic drops the repeat by id.
   */
  published?: boolean;
}

/**
 * The end of an attempt (`outcome` set) or an interim report (`outcome` absent: progress,
 * log lines, alarms while running). Callbacks are retried until acknowledged, so engines
 * treat them idempotently: an outcome for a run that already ended changes nothing.
 */
export interface RunCallback {
  runId: number;
  attempt: number;
  tenantId: string;
  executorId?: number;
  outcome?: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  result?: JsonValue;
  /** FAILED: the first line says what went wrong (alarms show it); the lines after it, the stack (error-text.ts). ABORTED: why. */
  error?: string;
  /** When the handler started / finished, executor clock (epoch ms). */
  startedAt?: number;
  finishedAt?: number;
  progress?: number;
  logs?: LogLine[];
  alarms?: BusinessAlarm[];
  /** With outcome ABORTED: why. */
  abortReason?: AbortReason;
  /**
   * With outcome FAILED: `false` when retrying cannot help (the handler threw a
   * NonRetryableError); the engine then ends the run FAILED without spending the task's
   * remaining attempts. Absent (the default) or `true`: the task's retry policy decides.
   */
  retryable?: boolean;
  /**
   * With an outcome: the room the executor has once this run's place is free (as DispatchAck's
   * `credit`), with its `creditSeq`. Runs ending are how an engine learns of room while it holds
   * a burst back; absent, it waits for the next dispatch answer.
   */
  credit?: number;
  creditSeq?: number;
  /** The W3C trace context of the handler's span (with an outcome): the engine's outcome span is its child. Absent: untraced. */
  traceparent?: string;
}

/** Most runs in one DispatchBatch. */
export const MAX_RUNS_PER_DISPATCH_BATCH = 100;

/**
 * Runs of one tenant for one executor sent together (POST /baton/runs/batch, signed like any
 * request): in a burst an engine pays one signed request — one HMAC, one HTTP exchange — for up
 * to MAX_RUNS_PER_DISPATCH_BATCH runs. Each run is judged as POST /baton/runs would judge it,
 * in order; one malformed or refused run does not refuse the others. An executor that does not
 * know this route answers 404: send the runs one by one instead.
 */
export interface DispatchBatch {
  runs: DispatchRequest[];
}

/** What became of each run of a DispatchBatch, in order. */
export interface DispatchBatchReply {
  results: DispatchBatchResult[];
}

/** One run's answer: the status and body POST /baton/runs would have given it (a DispatchAck or a DispatchRefusal). */
export interface DispatchBatchResult {
  runId: number;
  attempt: number;
  /** 202 accepted, 400 malformed, 404 unknown handler, 429 busy, 503 shutting down. */
  status: number;
  body: JsonValue;
}

/** Most callbacks in one CallbackBatch. */
export const MAX_CALLBACKS_PER_BATCH = 100;

/**
 * Final callbacks of one tenant sent together (POST /baton/callbacks/batch, signed like any
 * request): an executor finishing many runs at once pays one request, and the engine commits
 * them together. Each is judged on its own: one malformed or stale callback does not refuse the
 * others. An engine that does not know this route answers 404: send them one by one instead.
 */
export interface CallbackBatch {
  callbacks: RunCallback[];
}

/** What became of each callback of a CallbackBatch, in order. */
export interface CallbackBatchReply {
  results: CallbackBatchResult[];
}

/** One callback's answer: the status and body POST /baton/callbacks would have given it. */
export interface CallbackBatchResult {
  runId: number;
  attempt: number;
  /** 200 recorded, 409 stale (both: delivered), 400 malformed (dropped), 503 not processed (retry). */
  status: number;
  body: JsonValue;
}

/** Largest JSON schema of one handler's params in a heartbeat, serialised (UTF-8 bytes). */
export const MAX_HANDLER_SCHEMA_BYTES = 16 * 1024;
/**
 * Largest `handlerSchemas` of one heartbeat, the whole object serialised (UTF-8 bytes, as
 * JSON.stringify writes it): engines keep it in one TEXT column, at most 65,535 bytes on MySQL.
 */
export const MAX_HANDLER_SCHEMAS_BYTES = 60 * 1024;

/** Registration and liveness of one executor process; sent at start and every few seconds. */
export interface ExecutorHeartbeat {
  tenantId: string;
  app: string;
  url: string;
  capacity: number;
  inFlight: number;
  handlers: string[];
  /**
   * A JSON schema of the params of some of `handlers`, by handler name: the console checks a
   * task's params against it when the task is saved. Each at most MAX_HANDLER_SCHEMA_BYTES
   * serialised, the whole object at most MAX_HANDLER_SCHEMAS_BYTES. Absent: none declared.
   */
  handlerSchemas?: Record<string, JsonValue>;
  /** PROTOCOL_VERSION the executor speaks. */
  protocolVersion?: number;
  /** When this executor process (runtime) started, epoch ms: a new value at the same URL means a restart. */
  startedAt?: number;
  /** Of `inFlight`, how many wait in the executor's queue (not started yet). */
  queued?: number;
  /** How many may wait in the queue; with `capacity` the most the executor accepts at once. */
  queueLimit?: number;
  /**
   * The attempts accepted and not finished (queued or running) when the heartbeat was sent. An
   * attempt the engine thinks is running here, missing from this list and with no callback
   * pending, was lost (allow for a dispatch whose 202 crossed the heartbeat on the wire).
   * Omitted (not empty) when there are more than MAX_HEARTBEAT_ACTIVE of them.
   */
  active?: RunKey[];
  /** Final callbacks written to the executor's spool and not acknowledged yet. */
  spooled?: number;
  /** True when the executor is shutting down: send it nothing new. */
  draining?: boolean;
}

export interface ExecutorHeartbeatAck {
  executorId: number;
  /** Send the next heartbeat within this (ms). */
  intervalMs: number;
  /**
   * How many times engines have handed back (dispatched again elsewhere) the runs sent ahead to
   * the executor registered at this URL, as it stood when this heartbeat was recorded. An executor
   * of protocol 3 that sees it differ from the last ack's drops every run it holds for a later
   * instant, ABORTED NO_CONTACT, without starting it: some may be running elsewhere already. The
   * first ack an executor process gets sets it. Absent (an engine of an earlier version): unchanged.
   */
  handBacks?: number;
}
