import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PATHS,
  SIGNATURE_HEADERS,
  sign,
  verify,
  type AbortRequest,
  type DispatchRequest,
  type ExecutorHeartbeat,
  type RunCallback,
  type VerifyResult,
} from '@baton/protocol';

/** How long `waitFor` polls before it gives up: below vitest's 90 s test timeout (vitest.config.ts). */
const WAIT_CEILING_MS = 60_000;

/** A request the fake engine received. */
export interface Received<T> {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: T;
  /** The signature check, with the secret of the tenant named in the tenant header. */
  signature: VerifyResult;
  /** The status the fake engine answered. */
  status: number;
}

/** What an engine → executor request got back. */
export interface ExecutorAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  /** Wall time of the request, ms. */
  ms: number;
}

export interface SendOptions {
  /** Sign with this secret (default: the tenant's). */
  secret?: string;
  /** Tenant header (default: the engine's tenant). */
  tenant?: string;
  /** false: send no signature headers at all. */
  sign?: boolean;
  /** Signed timestamp (default now). */
  timestamp?: number;
  /** Override the raw body (what is sent and signed). */
  rawBody?: string;
  /** Sign this path instead of the one requested. */
  signedPath?: string;
  /** Re-spell the valid signature before sending (upper case, extra characters…). */
  respell?: (signature: string) => string;
}

/**
 * A fake Baton engine for executor tests: a real node:http server on 127.0.0.1 (ephemeral port)
 * that verifies signatures (401 on failure, like the real engine) and records heartbeats and
 * callbacks; acks heartbeats with `{ executorId, intervalMs, handBacks }`; answers a repeated final
 * callback with 409 (stale), like the real engine. It can fail on purpose (`failCallbacks`,
 * `failHeartbeats`) or be down (`down()` / `up()` on the same port). It also plays the engine's
 * client side: `dispatch`, `abort`, `status`, signed like the engine signs.
 */
export class FakeEngine {
  readonly heartbeats: Array<Received<ExecutorHeartbeat>> = [];
  readonly callbacks: Array<Received<RunCallback>> = [];
  /** Requests refused for a bad signature (any path). */
  readonly unauthorized: Array<Received<unknown>> = [];
  /** Called with each signed callback as it arrives, before it is answered. */
  onCallback?: (callback: RunCallback) => void;
  /** The intervalMs sent in heartbeat acks. */
  intervalMs = 3000;
  /** The handBacks sent in heartbeat acks (protocol 3: a change tells the executor to let go of its runs sent ahead); undefined: not sent. */
  handBacks: number | undefined = 0;
  private server: Server;
  private port = 0;
  private nextRunId = 1;
  private failCallbackCount = 0;
  private failCallbackStatus = 503;
  private failCallbackRetryAfter: number | undefined;
  private failHeartbeatCount = 0;
  private readonly finals = new Set<string>();
  private readonly executorIds = new Map<string, number>();

  private constructor(
    readonly tenantId: string,
    readonly secret: string,
  ) {
    this.server = this.makeServer();
  }

  static async start(options: { tenantId?: string; secret?: string; intervalMs?: number } = {}): Promise<FakeEngine> {
    // A secret of its own by default: an executor of another test file, still retrying a callback
    // to an engine whose port this one was given, is refused (401) instead of taking this engine's
    // failCallbacks or being recorded as delivered here.
    const engine = new FakeEngine(options.tenantId ?? 'acme', options.secret ?? randomBytes(16).toString('hex'));
    if (options.intervalMs !== undefined) engine.intervalMs = options.intervalMs;
    await engine.listen(0);
    return engine;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next `count` callbacks get `status` (default 503) instead of being recorded as delivered, with `Retry-After: retryAfterSeconds` when given. */
  failCallbacks(count: number, status = 503, retryAfterSeconds?: number): void {
    this.failCallbackCount = count;
    this.failCallbackStatus = status;
    this.failCallbackRetryAfter = retryAfterSeconds;
  }

  /** The next `count` heartbeats get 503. */
  failHeartbeats(count: number): void {
    this.failHeartbeatCount = count;
  }

  /** Stops listening and drops every open connection (executors see connection refused). */
  async down(): Promise<void> {
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    if (this.server.listening) return;
    this.server = this.makeServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.down();
  }

  get isUp(): boolean {
    return this.server.listening;
  }

  /** Final callbacks (with an outcome) accepted with 200, optionally for one run. */
  finalsFor(runId?: number): RunCallback[] {
    return this.callbacks.filter((c) => c.status === 200 && c.body.outcome && (runId === undefined || c.body.runId === runId)).map((c) => c.body);
  }

  /** Waits for the accepted final callback of a run (attempt 1 unless given). */
  finalCallback(runId: number, attempt = 1): Promise<Received<RunCallback>> {
    return this.waitFor(
      () => this.callbacks.find((c) => c.status === 200 && c.body.runId === runId && c.body.attempt === attempt && c.body.outcome),
      `the final callback of run ${runId}#${attempt}`,
    );
  }

  /**
   * Polls `probe` until it returns something truthy. There is no per-call timeout: a wait for
   * something that will happen must not fail because a loaded machine made it late (a guessed 5 s
   * did, on a shared CI machine). WAIT_CEILING_MS only makes a wait for something that never
   * comes fail naming `what`, before vitest's test timeout (90 s) fails it without a reason.
   */
  async waitFor<T>(probe: () => T | undefined | null | false, what = 'a condition'): Promise<T> {
    const until = Date.now() + WAIT_CEILING_MS;
    for (;;) {
      const value = probe();
      if (value) return value;
      if (Date.now() > until) throw new Error(`fake engine: ${what} did not come within ${WAIT_CEILING_MS} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** A DispatchRequest with sensible defaults (a fresh run id, deadline in 60 s). */
  request(overrides: Partial<DispatchRequest> = {}): DispatchRequest {
    const now = Date.now();
    return {
      runId: overrides.runId ?? this.nextRunId++,
      attempt: 1,
      tenantId: this.tenantId,
      taskId: 1,
      taskName: 'test-task',
      handler: 'noop',
      params: null,
      scheduledAt: now,
      deadline: now + 60_000,
      callbackUrls: [this.url],
      ...overrides,
    };
  }

  dispatch(executorUrl: string, request: DispatchRequest, options: SendOptions = {}): Promise<ExecutorAnswer> {
    return this.send(executorUrl, 'POST', PATHS.dispatch, request, options);
  }

  /** Several runs in one signed POST /baton/runs/batch. */
  dispatchBatch(executorUrl: string, runs: unknown[], options: SendOptions = {}): Promise<ExecutorAnswer> {
    return this.send(executorUrl, 'POST', PATHS.dispatchBatch, { runs }, options);
  }

  abort(executorUrl: string, request: AbortRequest, options: SendOptions = {}): Promise<ExecutorAnswer> {
    return this.send(executorUrl, 'POST', PATHS.abort(request.runId), request, options);
  }

  status(executorUrl: string, runId: number, options: SendOptions = {}): Promise<ExecutorAnswer> {
    return this.send(executorUrl, 'GET', PATHS.status(runId), undefined, options);
  }

  /** A signed request to an executor, as the engine makes it. */
  async send(executorUrl: string, method: string, path: string, payload: unknown, options: SendOptions = {}): Promise<ExecutorAnswer> {
    const body = options.rawBody ?? (payload === undefined ? '' : JSON.stringify(payload));
    const headers: Record<string, string> = {};
    if (body) headers['content-type'] = 'application/json';
    if (options.sign !== false) {
      Object.assign(headers, sign(options.secret ?? this.secret, options.tenant ?? this.tenantId, method, options.signedPath ?? path, body, options.timestamp ?? Date.now()));
      if (options.respell) headers[SIGNATURE_HEADERS.signature] = options.respell(headers[SIGNATURE_HEADERS.signature]);
    }
    const started = performance.now();
    const res = await fetch(executorUrl.replace(/\/+$/, '') + path, { method, headers, body: method === 'GET' ? undefined : body });
    const text = await res.text();
    const ms = performance.now() - started;
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed, ms };
  }

  private makeServer(): Server {
    return createServer({ keepAlive: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.onRequest(req, res, Buffer.concat(chunks).toString('utf8')));
    });
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? '/').split('?')[0];
    const tenant = req.headers[SIGNATURE_HEADERS.tenant];
    const signature: VerifyResult =
      tenant === this.tenantId ? verify(this.secret, req.headers, req.method ?? 'POST', path, raw, Date.now()) : { ok: false, reason: 'BAD_SIGNATURE' };
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      // recorded as null
    }
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
      return status;
    };
    const record = { at: Date.now(), path, headers: req.headers, raw, signature };
    if (!signature.ok) {
      this.unauthorized.push({ ...record, body, status: reply(401, { message: `bad signature: ${signature.reason}` }) });
      return;
    }
    if (path === PATHS.heartbeat && req.method === 'POST') {
      const hb = body as ExecutorHeartbeat;
      if (this.failHeartbeatCount > 0) {
        this.failHeartbeatCount--;
        this.heartbeats.push({ ...record, body: hb, status: reply(503, { message: 'engine unavailable (test)' }) });
        return;
      }
      let id = this.executorIds.get(hb.url);
      if (id === undefined) this.executorIds.set(hb.url, (id = this.executorIds.size + 1));
      this.heartbeats.push({ ...record, body: hb, status: reply(200, { executorId: id, intervalMs: this.intervalMs, ...(this.handBacks !== undefined ? { handBacks: this.handBacks } : {}) }) });
      return;
    }
    if (path === PATHS.callback && req.method === 'POST') {
      const cb = body as RunCallback;
      this.onCallback?.(cb);
      if (this.failCallbackCount > 0) {
        this.failCallbackCount--;
        const retryAfter = this.failCallbackRetryAfter !== undefined ? { 'retry-after': String(this.failCallbackRetryAfter) } : undefined;
        this.callbacks.push({ ...record, body: cb, status: reply(this.failCallbackStatus, { message: 'failing on purpose (test)' }, retryAfter) });
        return;
      }
      if (cb?.outcome) {
        const key = `${cb.runId}:${cb.attempt}`;
        if (this.finals.has(key)) {
          this.callbacks.push({ ...record, body: cb, status: reply(409, { message: 'stale: this attempt already ended' }) });
          return;
        }
        this.finals.add(key);
      }
      this.callbacks.push({ ...record, body: cb, status: reply(200, { ok: true }) });
      return;
    }
    reply(404, { message: `no route ${req.method} ${path}` });
  }
}
