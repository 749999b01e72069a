import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  MAX_HEARTBEAT_ACTIVE,
  MAX_RUNS_PER_DISPATCH_BATCH,
  PATHS,
  PROTOCOL_VERSION,
  SIGNATURE_HEADERS,
  TENANT_MISMATCH_REFUSAL,
  verify,
  type DispatchAck,
  type DispatchBatchResult,
  type DispatchRefusal,
  type ExecutorAttemptStatus,
  type ExecutorHeartbeat,
  type RunCallback,
  type RunStatusReport,
} from '@baton/protocol';
import { CallbackSender } from './callback-sender';
import { ContactLease } from './contact-lease';
import { EngineClient } from './engine-client';
import { ExecutorEventEmitter } from './events';
import type { AnyTaskHandler } from './handler';
import { handlerSchemas } from './handler-schemas';
import { HeartbeatLoop } from './heartbeat';
import { normalizeBaseUrl, resolveExecutorOptions, type ExecutorOptions, type ResolvedExecutorOptions } from './options';
import { messageOf, type FinalFields } from './outcome';
import { WorkerPool } from './pool';
import { BoundedMap } from './recent';
import { readBody } from './read-body';
import { SYSTEM_CLOCK } from './run-clock';
import { DirectAlarms } from './direct-alarms';
import { RunJob, runKey } from './run-job';
import type { ExecutorHealth, ExecutorRequest, ExecutorResponse, ExecutorStats } from './runtime-types';
import { CallbackSpool, type SpoolEntry } from './spool';
import { StartsFirst } from './starts-first';
import { checkAbort, checkDispatch } from './validate';

interface FinishedAttempt {
  outcome: NonNullable<RunCallback['outcome']>;
  startedAt?: number;
  finishedAt: number;
}

const ROUTE_RUN = /^\/baton\/runs\/(\d{1,15})$/;
const ROUTE_ABORT = /^\/baton\/runs\/(\d{1,15})\/abort$/;
/** How long stop() waits for its draining / final heartbeats (best effort). */
const ANNOUNCE_WAIT_MS = 1000;

/**
 * The executor: verifies and answers engine requests, runs handlers on a bounded pool, spools
 * and delivers callbacks, sends heartbeats, shuts down gracefully. Transport-neutral: the plain
 * server (createExecutorServer) and the Nest module (ExecutorModule) both feed it requests
 * through `serveNode` (or `handle` for another framework).
 */
export class ExecutorRuntime {
  /** Typed events (see ExecutorEvents). */
  readonly events = new ExecutorEventEmitter();
  readonly options: ResolvedExecutorOptions;
  /** When this runtime was created (heartbeat `startedAt`: a new value means a restart). */
  readonly startedAt = Date.now();
  private readonly handlers = new Map<string, AnyTaskHandler>();
  /** The heartbeat's handlerSchemas, fixed at start with the handlers. */
  private schemas: ExecutorHeartbeat['handlerSchemas'];
  private readonly jobs = new Map<string, RunJob>();
  private readonly finished: BoundedMap<string, FinishedAttempt>;
  private readonly pool: WorkerPool<RunJob>;
  /** When an engine last answered a heartbeat: whether runs sent ahead may start (protocol 3). */
  private readonly contact: ContactLease;
  private readonly client: EngineClient;
  private readonly finishing = new Set<Promise<void>>();
  private jobsEmptyWaiters: Array<() => void> = [];
  private spool: CallbackSpool | null = null;
  private sender: CallbackSender | null = null;
  private heartbeat: HeartbeatLoop | null = null;
  private direct: DirectAlarms | null = null;
  private phase: ExecutorStats['phase'] = 'new';
  private publicUrl?: string;
  private executorId?: number;
  private abandoned = 0;
  private creditSeq = 0;
  private starting?: Promise<void>;
  private stopping?: Promise<void>;

  constructor(options: ExecutorOptions) {
    this.options = resolveExecutorOptions(options);
    for (const h of this.options.handlers) this.handlers.set(h.name, h);
    this.finished = new BoundedMap(this.options.recentlyFinishedLimit);
    const clock = this.options.clock;
    this.contact = new ContactLease(clock === SYSTEM_CLOCK ? () => performance.now() : () => clock.now());
    // A line per task: one task's backlog queued here leaves the others their turn (WorkerPool).
    // A run sent ahead joins at its instant only within the sent-ahead lease (ContactLease).
    this.pool = new WorkerPool(this.options.concurrency, this.options.queueLimit, (job) => this.execute(job), clock, (job) => job.request.taskId, (jobs) => this.admitAtInstant(jobs));
    this.client = new EngineClient(this.options.tenantId, this.options.secret, this.options.requestTimeoutMs);
    this.reportTrouble();
  }

  /**
   * Adds handlers after construction, before `start()` (the Nest module adds those it discovers
   * on providers). Their names must be new to this runtime.
   */
  addHandlers(handlers: readonly AnyTaskHandler[]): void {
    if (this.phase !== 'new') throw new Error(`executor runtime: handlers can only be added before start (it is ${this.phase})`);
    const names = new Set(this.handlers.keys());
    for (const h of handlers) {
      if (!h || typeof h.name !== 'string' || !h.name.trim() || typeof h.run !== 'function') throw new Error('executor runtime: each handler needs a name and a run function (use defineHandler)');
      if (names.has(h.name)) throw new Error(`executor runtime: two handlers are named "${h.name}"`);
      names.add(h.name);
    }
    for (const h of handlers) this.handlers.set(h.name, h);
  }

  /** The URL engines call (once known). */
  get url(): string | undefined {
    return this.publicUrl;
  }

  /** The spool file in use (after start), or null when memory-only. */
  get spoolFile(): string | null {
    return this.spool?.file ?? null;
  }

  /**
   * Opens the spool and replays what a previous process left there, then accepts dispatches.
   * Heartbeats start as soon as the public URL is known (`publicUrl` here, in the options, or
   * later through `setPublicUrl`).
   */
  start(publicUrl?: string): Promise<void> {
    this.starting ??= this.doStart(publicUrl);
    return this.starting;
  }

  /** Sets the URL engines call and starts heartbeats (if running and not started yet). */
  setPublicUrl(url: string): void {
    this.publicUrl = normalizeBaseUrl(url, 'publicUrl');
    if (this.phase !== 'running' || this.heartbeat) return;
    this.heartbeat = new HeartbeatLoop(
      this.options.heartbeatIntervalMs,
      this.options.engineUrls,
      this.client,
      () => this.heartbeatPayload(),
      (ack, sentAt) => this.heard(ack, sentAt),
      this.events,
      this.options.rerouteAfterMs,
      () => this.contact.mark(),
    );
    this.heartbeat.start();
  }

  /**
   * Graceful stop: dispatches get 503 SHUTTING_DOWN; queued runs end ABORTED (SHUTDOWN) without
   * running, but for runs sent ahead whose instant comes within `shutdownGraceMs`, which start
   * then; running ones get `shutdownGraceMs` to finish, then their signal is aborted; pending
   * callbacks get `shutdownFlushMs` to be delivered (the rest stay spooled); heartbeats stop.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** The heartbeat this executor would send now. */
  heartbeatPayload(): ExecutorHeartbeat {
    const active = [...this.jobs.values()].map((j) => ({ runId: j.request.runId, attempt: j.request.attempt }));
    const hb: ExecutorHeartbeat = {
      tenantId: this.options.tenantId,
      app: this.options.app,
      url: this.publicUrl ?? '',
      capacity: this.options.concurrency,
      inFlight: this.pool.running + this.pool.queued,
      handlers: [...this.handlers.keys()],
      ...(this.schemas ? { handlerSchemas: this.schemas } : {}),
      protocolVersion: PROTOCOL_VERSION,
      startedAt: this.startedAt,
      queued: this.pool.queued,
      queueLimit: this.options.queueLimit,
      spooled: this.spool?.size ?? 0,
      draining: this.phase !== 'running',
    };
    if (active.length <= MAX_HEARTBEAT_ACTIVE) hb.active = active;
    return hb;
  }

  stats(): ExecutorStats {
    return {
      phase: this.phase,
      executorId: this.executorId,
      url: this.publicUrl,
      capacity: this.options.concurrency,
      running: this.pool.running,
      queued: this.pool.queued,
      abandoned: this.abandoned,
      pendingCallbacks: this.spool?.size ?? 0,
      spoolFile: this.spool?.file ?? null,
    };
  }

  /**
   * Serves one Node HTTP request (plain server and Nest both use this). `path`: the protocol
   * path when the request's URL has a prefix; `body`: the raw body when a framework already read it.
   */
  async serveNode(req: IncomingMessage, res: ServerResponse, opts: { path?: string; body?: string | Buffer } = {}): Promise<void> {
    const arrivedAt = this.options.clock.now();
    let body: string;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : opts.body.toString('utf8');
      if (Buffer.byteLength(body) > this.options.maxBodyBytes) return this.send(res, this.tooLarge(req), true);
    } else {
      const read = await readBody(req, this.options.maxBodyBytes).catch(() => null);
      if (read === null) return; // the client went away
      if (read.tooLarge) return this.send(res, this.tooLarge(req), true);
      body = read.text;
    }
    const path = opts.path ?? (req.url ?? '/').split('?')[0];
    let response: ExecutorResponse;
    try {
      response = await this.handle({ method: req.method ?? 'GET', path, headers: req.headers, body, arrivedAt });
    } catch (err) {
      this.options.logger.error(`[baton executor] internal error on ${req.method} ${path}: ${(err as Error).stack ?? String(err)}`);
      response = { status: 500, body: { accepted: false, reason: 'BAD_REQUEST', message: 'internal error of the executor' } };
    }
    this.send(res, response, false);
  }

  /** Answers one request (framework-neutral). Never throws for a bad request; answers 4xx. */
  async handle(req: ExecutorRequest): Promise<ExecutorResponse> {
    const method = req.method.toUpperCase();
    const path = req.path.split('?')[0];
    if (path === '/baton/health') {
      if (method !== 'GET') return this.refuse(method, path, 405, 'BAD_REQUEST', 'use GET');
      return { status: 200, body: this.health() };
    }
    const abortMatch = ROUTE_ABORT.exec(path);
    const runMatch = ROUTE_RUN.exec(path);
    const route = path === PATHS.dispatch ? 'dispatch' : path === PATHS.dispatchBatch ? 'batch' : abortMatch ? 'abort' : runMatch ? 'status' : null;
    if (!route) return this.refuse(method, path, 404, 'BAD_REQUEST', `no executor route ${path}`);
    const wanted = route === 'status' ? 'GET' : 'POST';
    if (method !== wanted) return this.refuse(method, path, 405, 'BAD_REQUEST', `use ${wanted} ${path}`);
    const auth = this.authenticate(req.headers, method, path, req.body);
    if (auth) return this.refuse(method, path, 401, 'UNAUTHORIZED', auth.message, auth.field);
    if (route === 'status') return { status: 200, body: this.runStatus(Number(runMatch![1])) };
    let parsed: unknown;
    try {
      parsed = req.body ? JSON.parse(req.body) : undefined;
    } catch (err) {
      return this.refuse(method, path, 400, 'BAD_REQUEST', `body: malformed JSON (${(err as Error).message})`, 'body');
    }
    if (route === 'abort') return this.abort(method, path, parsed, Number(abortMatch![1]));
    const arrivedAt = req.arrivedAt ?? this.options.clock.now();
    if (route === 'batch') return this.dispatchBatch(method, path, parsed, arrivedAt);
    return this.dispatch(method, path, parsed, arrivedAt);
  }

  // ---- requests ---------------------------------------------------------------------------

  /** Why a request is refused 401, or null: another tenant's first (TENANT_MISMATCH_REFUSAL), then the signature. */
  private authenticate(headers: ExecutorRequest['headers'], method: string, path: string, body: string): { message: string; field?: string } | null {
    const lower: Record<string, string | string[] | undefined> = {};
    for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
    const tenant = lower[SIGNATURE_HEADERS.tenant];
    if (tenant === undefined) return { message: `signature: missing ${SIGNATURE_HEADERS.tenant} header` };
    if (tenant !== this.options.tenantId) return { message: TENANT_MISMATCH_REFUSAL.message, field: TENANT_MISMATCH_REFUSAL.field };
    const result = verify(this.options.secret, lower, method, path, body, Date.now(), this.options.maxSkewMs);
    if (result.ok) return null;
    const why = { MISSING_HEADERS: `missing ${SIGNATURE_HEADERS.timestamp} / ${SIGNATURE_HEADERS.signature} headers`, STALE_TIMESTAMP: `${SIGNATURE_HEADERS.timestamp} is missing, malformed or more than ${this.options.maxSkewMs} ms away from the executor's clock`, MALFORMED_SIGNATURE: `${SIGNATURE_HEADERS.signature} is not lower-case hex of exactly 64 characters`, BAD_SIGNATURE: 'the signature does not match (secret, method, path or body differ)' };
    return { message: `signature: ${why[result.reason]}` };
  }

  private dispatch(method: string, path: string, body: unknown, arrivedAt: number): ExecutorResponse {
    const checked = checkDispatch(body);
    if (!checked.ok) return this.refuse(method, path, 400, 'BAD_REQUEST', checked.message, checked.field);
    const request = checked.value;
    if (request.tenantId !== this.options.tenantId) return this.refuse(method, path, 400, 'BAD_REQUEST', 'tenantId: not the tenant of this executor', 'tenantId');
    const { runId, attempt } = request;
    const key = runKey(runId, attempt);
    const known = this.jobs.get(key);
    if (known || this.finished.has(key)) {
      if (this.events.listens('accepted')) this.events.emit('accepted', { runId, attempt, handler: request.handler, duplicate: true, queued: known?.state === 'QUEUED' });
      return { status: 202, body: this.ack(runId, attempt) };
    }
    if (this.phase !== 'running') {
      return this.refuse(method, path, 503, 'SHUTTING_DOWN', this.phase === 'draining' || this.phase === 'stopped' ? 'the executor is shutting down' : 'the executor is not started yet');
    }
    const handler = this.handlers.get(request.handler);
    if (!handler) {
      return this.refuse(method, path, 404, 'UNKNOWN_HANDLER', `handler: no handler "${request.handler}" here (this executor has: ${[...this.handlers.keys()].join(', ') || 'none'})`, 'handler');
    }
    const job = new RunJob(request, arrivedAt, handler, this.options, (cb) => this.sender!.sendOnce(request.callbackUrls, cb), () => this.executorId, this.direct, this.options.clock);
    this.jobs.set(key, job);
    // A run sent ahead of its instant (protocol 2) waits for it on this machine's clock, counted from its request's arrival.
    const taken = this.pool.tryAdd(job, request.startInMs ? arrivedAt + request.startInMs : undefined);
    if (!taken) {
      this.jobs.delete(key);
      return this.refuse(method, path, 429, 'BUSY', `all ${this.options.concurrency} workers are busy and ${this.pool.queued} runs are queued (queueLimit ${this.options.queueLimit})`);
    }
    if (this.events.listens('accepted')) this.events.emit('accepted', { runId, attempt, handler: request.handler, duplicate: false, queued: taken !== 'started' });
    return { status: 202, body: this.ack(runId, attempt) };
  }

  /** Each run of a DispatchBatch judged as POST /baton/runs would judge it, in order; a wrong field is named with its index. */
  private dispatchBatch(method: string, path: string, body: unknown, arrivedAt: number): ExecutorResponse {
    const runs = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { runs?: unknown }).runs : undefined;
    if (!Array.isArray(runs)) return this.refuse(method, path, 400, 'BAD_REQUEST', 'runs: must be an array of runs', 'runs');
    if (runs.length === 0 || runs.length > MAX_RUNS_PER_DISPATCH_BATCH) {
      return this.refuse(method, path, 400, 'BAD_REQUEST', `runs: must hold 1 to ${MAX_RUNS_PER_DISPATCH_BATCH} runs (got ${runs.length})`, 'runs');
    }
    const results = runs.map((run: unknown, i): DispatchBatchResult => {
      const answer = this.dispatch(method, path, run, arrivedAt);
      const refusal = answer.body as DispatchRefusal;
      if (refusal.accepted === false && refusal.field) refusal.field = `runs[${i}].${refusal.field}`;
      const ids = (typeof run === 'object' && run !== null ? run : {}) as { runId?: unknown; attempt?: unknown };
      return { runId: Number.isSafeInteger(ids.runId) ? (ids.runId as number) : 0, attempt: Number.isSafeInteger(ids.attempt) ? (ids.attempt as number) : 0, status: answer.status, body: answer.body as unknown as DispatchBatchResult['body'] };
    });
    return { status: 200, body: { results } };
  }

  /** A 202's body, with the room left: what the engines may send before this executor's next answer. */
  private ack(runId: number, attempt: number): DispatchAck {
    return { accepted: true, runId, attempt, ...this.credit(0) };
  }

  /**
   * The room this executor has (free workers plus free queue places, `freeing` more about to be
   * freed), numbered so engines keep the newest figure: microseconds of the clock, at least one
   * more than the last — increasing across a restart too, which a plain counter would not be.
   */
  private credit(freeing: number): { credit: number; creditSeq: number } {
    this.creditSeq = Math.max(this.creditSeq + 1, Date.now() * 1000);
    const credit = Math.max(0, this.options.concurrency + this.options.queueLimit - this.pool.running - this.pool.queued + freeing);
    return { credit, creditSeq: this.creditSeq };
  }

  private abort(method: string, path: string, body: unknown, pathRunId: number): ExecutorResponse {
    const checked = checkAbort(body, pathRunId);
    if (!checked.ok) return this.refuse(method, path, 400, 'BAD_REQUEST', checked.message, checked.field);
    const { runId, attempt, reason } = checked.value;
    const key = runKey(runId, attempt);
    const job = this.jobs.get(key);
    if (job && !job.done) {
      const state = job.state;
      if (job.abort(reason)) this.events.emit('aborting', { runId, attempt, reason });
      if (state === 'QUEUED' && this.pool.remove(job)) void this.finish(job, { outcome: 'ABORTED', error: `${messageOf(job.abortError)} (before it started)` });
      return { status: 202, body: { aborted: true, runId, attempt, state } };
    }
    return { status: 404, body: { aborted: false, runId, attempt, state: this.finished.has(key) ? 'FINISHED' : 'UNKNOWN' } };
  }

  private runStatus(runId: number): RunStatusReport {
    const attempts: ExecutorAttemptStatus[] = [];
    for (const job of this.jobs.values()) {
      if (job.request.runId !== runId) continue;
      const s: ExecutorAttemptStatus = { attempt: job.request.attempt, state: job.state };
      if (job.startedAt !== undefined) s.startedAt = job.startedAt;
      attempts.push(s);
    }
    const prefix = `${runId}:`;
    for (const [key, f] of this.finished.entries()) {
      if (!key.startsWith(prefix) || this.jobs.has(key)) continue;
      const s: ExecutorAttemptStatus = { attempt: Number(key.slice(prefix.length)), state: 'FINISHED', outcome: f.outcome, finishedAt: f.finishedAt };
      if (f.startedAt !== undefined) s.startedAt = f.startedAt;
      s.callbackPending = this.spool?.has(key) ?? false;
      attempts.push(s);
    }
    attempts.sort((a, b) => a.attempt - b.attempt);
    return { runId, attempts };
  }

  private health(): ExecutorHealth {
    const status = this.phase === 'running' ? 'UP' : this.phase === 'draining' ? 'DRAINING' : this.phase === 'stopped' ? 'STOPPED' : 'STARTING';
    return { status, capacity: this.options.concurrency, inFlight: this.pool.running + this.pool.queued };
  }

  private refuse(method: string, path: string, status: number, reason: DispatchRefusal['reason'], message: string, field?: string): ExecutorResponse {
    this.events.emit('refused', { method, path, status, reason, message });
    const body: DispatchRefusal = { accepted: false, reason, message };
    if (field) body.field = field;
    return { status, body };
  }

  private tooLarge(req: IncomingMessage): ExecutorResponse {
    const path = (req.url ?? '/').split('?')[0];
    return this.refuse(req.method ?? 'POST', path, 413, 'BAD_REQUEST', `body: larger than ${this.options.maxBodyBytes} bytes`, 'body');
  }

  private send(res: ServerResponse, response: ExecutorResponse, close: boolean): void {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(response.body);
    const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) };
    if (close) headers.connection = 'close';
    res.writeHead(response.status, headers);
    res.end(text);
  }

  // ---- runs -------------------------------------------------------------------------------

  private async execute(job: RunJob): Promise<void> {
    if (job.done) return;
    if (job.aborted) {
      await this.finish(job, { outcome: 'ABORTED', error: `${messageOf(job.abortError)} (before it started)` });
      return;
    }
    if (this.options.clock.now() >= job.deadline) {
      job.abort('DEADLINE');
      await this.finish(job, { outcome: 'ABORTED', error: 'aborted: the deadline passed before the handler started' });
      return;
    }
    job.state = 'RUNNING';
    job.startedAt = this.options.clock.now();
    job.armDeadline();
    const { runId, attempt } = job.request;
    if (this.events.listens('started')) this.events.emit('started', { runId, attempt, handler: job.handler.name });
    const { fields, stillRunning } = await job.runHandler();
    await this.finish(job, fields);
    if (stillRunning) {
      this.abandoned++;
      await stillRunning; // the slot stays taken until the handler really returns
      this.abandoned--;
    }
  }

  private track(p: Promise<void>): void {
    this.finishing.add(p);
    void p.finally(() => this.finishing.delete(p));
  }

  /** Builds the final callback, spools it, starts its delivery. Once per job; stop() waits for these. */
  private finish(job: RunJob, f: FinalFields): Promise<void> {
    const p = this.doFinish(job, f);
    this.track(p);
    return p;
  }

  private async doFinish(job: RunJob, f: FinalFields): Promise<void> {
    if (job.done) return;
    await job.settle();
    const r = job.request;
    const finishedAt = this.options.clock.now();
    // The credit engines learn from a run ending: its own place counts as free (a running job
    // holds its worker until this returns; a queued one has left the queue already).
    const cb = job.finalCallback(f, finishedAt);
    const { credit, creditSeq } = this.credit(job.state === 'RUNNING' ? 1 : 0);
    cb.credit = credit;
    cb.creditSeq = creditSeq;
    this.finished.set(job.key, { outcome: f.outcome, startedAt: job.startedAt, finishedAt });
    this.jobs.delete(job.key);
    if (this.jobs.size === 0) this.jobsEmptyWaiters.splice(0).forEach((w) => w());
    if (this.events.listens('finished')) {
      this.events.emit('finished', {
        runId: r.runId,
        attempt: r.attempt,
        handler: r.handler,
        outcome: f.outcome,
        durationMs: job.startedAt !== undefined ? finishedAt - job.startedAt : 0,
        ...(f.error !== undefined ? { error: f.error } : {}),
        ...(cb.abortReason ? { abortReason: cb.abortReason } : {}),
      });
    }
    const entry: SpoolEntry = { id: job.key, at: finishedAt, urls: r.callbackUrls, callback: cb };
    try {
      await this.spool!.add(entry);
    } catch (err) {
      this.options.logger.error(`[baton executor] could not write the callback of run ${job.key} to the spool (sending it anyway): ${(err as Error).message}`, ...job.logFields());
    }
    this.sender!.enqueue(entry);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  private async doStart(publicUrl?: string): Promise<void> {
    if (this.phase !== 'new') throw new Error(`executor runtime cannot start: it is ${this.phase}`);
    this.phase = 'starting';
    const { schemas, leftOut } = handlerSchemas(this.handlers.values());
    this.schemas = schemas;
    if (leftOut.length) this.options.logger.warn(`[baton executor] params schemas not sent (over 16 KB each, or past 60 KB for all of them; their tasks are saved unchecked): ${leftOut.join(', ')}`);
    const { spool, pending } = await CallbackSpool.open(this.options.spoolFile, { numbered: this.options.spoolFileIsDefault });
    this.spool = spool;
    const startsFirst = new StartsFirst(() => this.pool.inLine > 0 && this.phase === 'running', () => this.pool.whenLineEmpty());
    this.sender = new CallbackSender(
      { engineUrls: this.options.engineUrls, baseMs: this.options.callbackRetry.baseMs, maxMs: this.options.callbackRetry.maxMs, concurrency: this.options.callbackConcurrency, rerouteAfterMs: this.options.rerouteAfterMs, turn: () => startsFirst.turn() },
      this.client,
      spool,
      this.events,
    );
    // Direct alarms: connect to the broker now (reconnecting in the background); null without brokerUrl.
    this.direct = DirectAlarms.fromOptions(this.options);
    this.phase = 'running';
    if (pending.length) {
      this.events.emit('replayed', { count: pending.length, spoolFile: spool.file ?? '' });
      for (const entry of pending) this.sender.enqueue(entry);
    }
    const url = publicUrl ?? this.options.publicUrl;
    if (url) this.setPublicUrl(url);
  }

  private async doStop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.phase !== 'running') {
      this.phase = 'stopped';
      return;
    }
    this.phase = 'draining';
    this.events.emit('draining', {});
    const announce = this.heartbeat?.beatNow();
    // A run sent ahead whose instant comes within the grace is kept: it was accepted, and it starts
    // then, like one running now. Failing it would fail a run that a deploy merely came close to.
    this.dropUnstarted(this.pool.drainQueue(this.options.clock.now() + this.options.shutdownGraceMs));
    if (!(await this.jobsEmpty(this.options.shutdownGraceMs))) {
      this.dropUnstarted(this.pool.drainQueue());
      for (const job of this.jobs.values()) {
        if (job.abort('SHUTDOWN')) this.events.emit('aborting', { runId: job.request.runId, attempt: job.request.attempt, reason: 'SHUTDOWN' });
      }
      await this.jobsEmpty(this.options.abortGraceMs + 1000);
    }
    await Promise.all([...this.finishing]);
    await this.sender!.flush(this.options.shutdownFlushMs);
    this.sender!.stop();
    await within(announce, ANNOUNCE_WAIT_MS);
    this.heartbeat?.stop();
    await within(this.heartbeat?.beatNow(), ANNOUNCE_WAIT_MS); // last word: draining, nothing in flight
    this.client.close();
    const undelivered = this.spool!.size;
    await this.spool!.close();
    await this.direct?.close();
    this.phase = 'stopped';
    this.events.emit('stopped', { undelivered });
  }

  /** An engine answered a heartbeat: the executor's id, the lease renewed; a changed `handBacks` lets go of every run held for its instant. */
  private heard(ack: { executorId?: number; intervalMs: number; handBacks?: number }, sentAt: number): void {
    if (ack.executorId !== undefined) this.executorId = ack.executorId;
    if (this.contact.heard(sentAt, ack.intervalMs, ack.handBacks)) this.letGo(this.pool.takeWaiting(), 'the engines handed back the runs this executor held while it was out of contact');
  }

  /** The runs whose instant came that may start: all of them within the sent-ahead lease, else none. */
  private admitAtInstant(jobs: RunJob[]): RunJob[] {
    if (this.contact.fresh) return jobs;
    const silent = this.contact.silentForMs;
    this.letGo(jobs, silent === null ? 'no engine has answered a heartbeat yet' : `no engine has answered a heartbeat for ${silent} ms`);
    return [];
  }

  /**
   * Runs sent ahead this executor may not start (the sent-ahead lease, protocol 3): ended ABORTED
   * NO_CONTACT without running, which the engines take as never started and dispatch again.
   */
  private letGo(jobs: readonly RunJob[], why: string): void {
    if (jobs.length === 0) return;
    this.options.logger.warn(`[baton executor] ${jobs.length} run(s) sent ahead let go without starting (the engines dispatch them again): ${why}`);
    for (const job of jobs) {
      job.abort('NO_CONTACT');
      void this.finish(job, { outcome: 'ABORTED', error: `${messageOf(job.abortError)} (${why})` });
    }
  }

  private dropUnstarted(jobs: readonly RunJob[]): void {
    for (const job of jobs) {
      job.abort('SHUTDOWN');
      void this.finish(job, { outcome: 'ABORTED', error: 'aborted: the executor shut down before the run started' });
    }
  }

  /** Writes the SDK's own trouble to the logger, without flooding it during an outage. */
  private reportTrouble(): void {
    const log = this.options.logger;
    let heartbeatDown = false;
    this.events.on('heartbeatFailed', (e) => {
      if (!heartbeatDown) log.warn(`[baton executor] heartbeat failed on every engine URL (will keep trying): ${e.error}`);
      heartbeatDown = true;
    });
    this.events.on('heartbeat', (e) => {
      if (heartbeatDown) log.info(`[baton executor] heartbeat acknowledged again by ${e.engineUrl}`);
      heartbeatDown = false;
    });
    this.events.on('callbackRetry', (e) => {
      if (e.tries === 1 || e.tries % 10 === 0) log.warn(`[baton executor] callback of run ${e.runId}#${e.attempt} not delivered (try ${e.tries}, next in ${e.delayMs} ms): ${e.error}`);
    });
    this.events.on('callbackDropped', (e) => log.error(`[baton executor] callback of run ${e.runId}#${e.attempt} refused for good, dropped: ${e.message}`));
  }

  private jobsEmpty(timeoutMs: number): Promise<boolean> {
    if (this.jobs.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.jobsEmptyWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}


/** Waits for `p` (errors ignored) at most `ms`. */
async function within(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}


