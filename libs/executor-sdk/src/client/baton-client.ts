import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseRetryAfter } from '@baton/protocol';
import { BatonApiError, type FieldProblem } from './baton-api-error';
import { itemError, sendTogether, type Together } from './send-together';

/** Most runs in one POST /api/runs/batch, and events in one POST /api/events (the console's bounds). */
const MAX_BATCH_RUNS = 1_000;
const MAX_BATCH_EVENTS = 500;

/**
 * Errors of a connection that never opened: the request reached no console, so sending it to
 * another (or again) can never make a run twice.
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/** The client's refusals whose request never reached a console (NOT_CONNECTED). */
const neverSent = new WeakSet<BatonApiError>();

/** How a client reaches the console. */
export interface BatonClientOptions {
  /**
   * The console's base URL, e.g. `http://baton-console:8080`; or the URLs of a cluster's consoles
   * (`baton console`, `baton node`), all http or all https: requests go to the first, and move to
   * the next when a connection to it cannot be opened (a console down or starting again), where
   * they stay. No default.
   */
  url: string | readonly string[];
  /** A tenant API key (Settings → API keys), role TENANT_ADMIN to submit. */
  apiKey: string;
  /** Keep-alive connections to the console at most (default 16). */
  maxSockets?: number;
  /** Times a request refused with 429 or 503, or (when it is safe to send again) not answered, is sent again (default 3). */
  retries?: number;
  /** Longest wait before sending again, whatever Retry-After says, in ms (default 5,000). */
  maxRetryWaitMs?: number;
  /** Longest a request may take, in ms (default 30,000). */
  timeoutMs?: number;
  /**
   * `submit`, `emit`: batch requests of each in flight at once; what is submitted meanwhile goes
   * together in the next (default 1: with 2, the second request mostly carried the few runs of one
   * round trip, and the console's cost per request that doubled made every start later —
   * docs/BENCHMARKS.md, on demand: p99 at 1,000/s 376–503 → 209–260 ms).
   */
  maxBatchesInFlight?: number;
  /** `submit`, `emit`: runs (events) waiting to be sent at most; past it they throw BatonApiError 429 CLIENT_BACKLOG at once (default 20,000). */
  maxWaiting?: number;
}

/**
 * Whether the console makes at most one run (event) of `item` however often it is sent: it carries
 * an idempotency key, a string. null is no key (the console's reading too); anything else is
 * refused by the console, which makes nothing of it. Only such items' requests are sent again
 * after no answer. Not an object (a caller's `submit(null)`): no key, and the console refuses it alone.
 */
function carriesKey(item: unknown): boolean {
  return typeof item === 'object' && item !== null && typeof (item as { idempotencyKey?: unknown }).idempotencyKey === 'string';
}

/** One run asked for. */
export interface SubmitRun {
  taskId: number;
  /** The run's params (default: the task's). */
  params?: unknown;
  /** Params of the flow the run starts. */
  flowParams?: unknown;
  /** One run per key and task, however often it is sent: 1 to 62 of A-Z a-z 0-9 - _ . : ~. */
  idempotencyKey?: string;
}

/** A run as the console answers it (the fields a submitter needs; the answer has more). */
export interface SubmittedRunView {
  id: number;
  taskId: number;
  state: string;
  createdAt: number;
  [field: string]: unknown;
}

/** A submission's result in a batch. */
export interface SubmitResult {
  /** 201 made now; 200 made before under its idempotency key; 400 refused; 404 no such task. */
  status: number;
  run?: SubmittedRunView;
  error?: { code: string; message: string; errors?: FieldProblem[] };
}

/** One event sent (POST /api/events). */
export interface EmitEvent {
  /** 1 to 100 of A-Z a-z 0-9 . _ - : starting with a letter or digit (`order.paid`). */
  name: string;
  /** A JSON object, at most 64,000 bytes as JSON (default {}). */
  payload?: Record<string, unknown>;
  /** One event per tenant and key while events are kept: 1 to 62 of A-Z a-z 0-9 - _ . : ~. */
  idempotencyKey?: string;
}

/** An event as the console answers it: its id, the runs it started (the answer has more). */
export interface EmittedEventView {
  id: number;
  name: string;
  runIds: number[];
  /** False: its idempotency key was used before; this is the first event sent under it. */
  created: boolean;
  [field: string]: unknown;
}

/** An event's result in a batch. */
export interface EmitResult {
  /** 201 stored now; 200 stored before under its idempotency key; 400 refused. */
  status: number;
  event?: EmittedEventView;
  error?: { code: string; message: string; errors?: FieldProblem[] };
}

/**
 * Submits work to Baton from a Node service, through the console's public API with a tenant API
 * key, so that no one writes the HTTP by hand:
 *
 *   const baton = new BatonClient({ url: 'http://baton-console:8080', apiKey: process.env.BATON_API_KEY! });
 *   const run = await baton.trigger(taskId, { params: { orderId: 42 }, idempotencyKey: 'order-42' });
 *   const { results } = await baton.submitBatch(orders.map((o) => ({ taskId, params: o, idempotencyKey: `order-${o.id}` })));
 *   const event = await baton.emitEvent({ name: 'order.paid', payload: { order: { id: 42 } }, idempotencyKey: 'paid-42' });
 *
 * `submit` and `emit` are how to send runs and events one at a time at any rate: each is sent on
 * the next turn of the event loop, alone at a trickle; while a request is in flight
 * (`maxBatchesInFlight`), what is submitted meanwhile waits and goes together in one `POST /api/runs/batch`
 * (`POST /api/events`), each item still answered, or refused, on its own (sendTogether). So a
 * service submitting thousands a second makes a few dozen requests, and pays the console's cost
 * per request that often, not per run (docs/BENCHMARKS.md, on demand: the client series).
 *
 * A trigger is a run due now (`POST /api/tasks/:id/trigger`); a batch is up to 1,000 runs of one
 * or several tasks in one request (`POST /api/runs/batch`), each with its own result, or all or
 * none with `atomic`. An event (`POST /api/events`) starts the tenant's tasks whose EVENT trigger
 * it matches; `emitEvents` sends up to 500 in one request. Requests go over keep-alive connections (node:http, as the engine's dispatch
 * does: a fraction of axios' CPU per request). A 429 or 503 is sent again after its Retry-After; a
 * request that got no answer is sent again only when it cannot make a run twice (every run carries
 * an idempotency key); one that reached no console (its connection refused) always is, at once to
 * the next console when `url` names several. What is refused for good throws BatonApiError naming
 * the fields.
 */
export class BatonClient {
  private readonly bases: readonly URL[];
  /** The console requests go to (an index into `bases`). */
  private current = 0;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly retries: number;
  private readonly maxRetryWaitMs: number;
  private readonly timeoutMs: number;
  private readonly submissions: Together<SubmitRun, SubmitResult>;
  private readonly events: Together<EmitEvent, EmitResult>;
  private readonly maxWaiting: number;

  constructor(private readonly options: BatonClientOptions) {
    this.bases = (typeof options.url === 'string' ? [options.url] : [...options.url]).map((url) => new URL(url));
    if (this.bases.length === 0) throw new BatonApiError(400, 'VALIDATION_FAILED', 'url: at least one console URL', [{ field: 'url', reason: 'at least one console URL' }]);
    const https = this.bases[0].protocol === 'https:';
    if (this.bases.some((b) => (b.protocol === 'https:') !== https)) throw new BatonApiError(400, 'VALIDATION_FAILED', 'url: all http or all https', [{ field: 'url', reason: 'all http or all https' }]);
    // An idle connection is closed before the console's keep-alive timeout (Node's 5 s) can close it under a request.
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, timeout: 4_000 };
    this.agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = https ? httpsRequest : httpRequest;
    this.retries = options.retries ?? 3;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 5_000;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxWaiting = options.maxWaiting ?? 20_000;
    const concurrency = options.maxBatchesInFlight ?? 1;
    this.submissions = sendTogether({ send: async (runs: readonly SubmitRun[]) => (await this.submitBatch(runs)).results, maxItems: MAX_BATCH_RUNS, concurrency });
    this.events = sendTogether({ send: async (events: readonly EmitEvent[]) => (await this.emitEvents(events)).results, maxItems: MAX_BATCH_EVENTS, concurrency });
  }

  /**
   * A run of the task now, sent together with the other runs submitted meanwhile (see above):
   * the run made, or (its idempotency key used before for the task) the run it made, `created`
   * false. A refused run throws BatonApiError with the console's status and the fields it names
   * (`params`, `idempotencyKey`…, as a trigger's would).
   */
  async submit(run: SubmitRun): Promise<{ run: SubmittedRunView; created: boolean }> {
    const result = await this.together(this.submissions, run, 'runs');
    if (result.run) return { run: result.run, created: result.status === 201 };
    throw itemError(result, 'runs');
  }

  /** One event, sent together with the other events emitted meanwhile (see above): what `emitEvent` answers, or its refusal naming its own fields. */
  async emit(event: EmitEvent): Promise<EmittedEventView> {
    const result = await this.together(this.events, event, 'events');
    if (result.event) return result.event;
    throw itemError(result, 'events');
  }

  private async together<I, R>(lane: Together<I, R>, item: I, what: string): Promise<R> {
    if (lane.pending >= this.maxWaiting) throw new BatonApiError(429, 'CLIENT_BACKLOG', `${lane.pending} ${what} are waiting to be sent to the console already (maxWaiting)`);
    const sent = await lane.push(item);
    if ('failure' in sent) throw sent.failure;
    return sent.result;
  }

  /** A run of the task now; with an idempotency key used before for the task, the run it made (`created` false). */
  async trigger(taskId: number, run: Omit<SubmitRun, 'taskId'> = {}): Promise<{ run: SubmittedRunView; created: boolean }> {
    const key: unknown = run.idempotencyKey;
    // null is no key, as in a batch's item or an event (a header `null` would be the key "null": every such trigger one run).
    if (key !== undefined && key !== null && typeof key !== 'string') throw new BatonApiError(400, 'VALIDATION_FAILED', 'idempotencyKey: must be a string', [{ field: 'idempotencyKey', reason: 'must be a string' }]);
    const headers: Record<string, string> = carriesKey(run) ? { 'idempotency-key': key as string } : {};
    const body = { ...(run.params === undefined ? {} : { params: run.params }), ...(run.flowParams === undefined ? {} : { flowParams: run.flowParams }) };
    const answer = await this.post(`/api/tasks/${taskId}/trigger`, body, headers, carriesKey(run));
    return { run: answer.body as SubmittedRunView, created: answer.status === 201 };
  }

  /** Up to 1,000 runs in one request: each one's result, in order (atomic: all made, or BatonApiError naming every refused one). */
  async submitBatch(runs: readonly SubmitRun[], options: { atomic?: boolean } = {}): Promise<{ results: SubmitResult[]; created: number; existing: number; refused: number }> {
    const answer = await this.post('/api/runs/batch', { runs, ...(options.atomic ? { atomic: true } : {}) }, {}, runs.every(carriesKey));
    return answer.body as { results: SubmitResult[]; created: number; existing: number; refused: number };
  }

  /** Sends one event: the runs it started; with an idempotency key used before, the first event (`created` false). */
  async emitEvent(event: EmitEvent): Promise<EmittedEventView> {
    const answer = await this.post('/api/events', event, {}, carriesKey(event));
    return answer.body as EmittedEventView;
  }

  /** Up to 500 events in one request: each one's result, in order (a refused one is its own 400). */
  async emitEvents(events: readonly EmitEvent[]): Promise<{ results: EmitResult[]; created: number; existing: number; refused: number }> {
    const answer = await this.post('/api/events', { events }, {}, events.every(carriesKey));
    return answer.body as { results: EmitResult[]; created: number; existing: number; refused: number };
  }

  /** The id of the tenant's task of that name (BatonApiError 404 when there is none; the console's refusal, such as a 401, as it is). */
  async taskId(name: string): Promise<number> {
    // `search` finds names that contain it: `sync` among 600 `sync-…` tasks may be past the first page.
    let cursor: string | null = null;
    do {
      const answer = await this.reach('GET', `/api/tasks?search=${encodeURIComponent(name)}&limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, undefined, {});
      if (answer.status >= 400) throw toError(answer.status, answer.body);
      const page = answer.body as { items?: Array<{ id: number; name: string }>; nextCursor?: string | null };
      const found = (page.items ?? []).find((t) => t.name === name);
      if (found) return found.id;
      cursor = page.nextCursor ?? null;
    } while (cursor !== null);
    throw new BatonApiError(404, 'NOT_FOUND', `No task named "${name}"`);
  }

  /** Closes the idle connections; requests in flight finish. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * One request to the console requests go to; when a connection to it cannot be opened (it reached
   * no console), at once to the next, once round them: later requests go where one got through.
   * Throws the last refusal when none took the connection.
   */
  private async reach(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: unknown }> {
    for (let hops = 1; ; hops++) {
      const at = this.current;
      try {
        return await this.request(method, path, body, headers, at);
      } catch (err) {
        if (!(err instanceof BatonApiError && neverSent.has(err))) throw err;
        // Unless another request moved on meanwhile.
        if (this.current === at) this.current = (at + 1) % this.bases.length;
        if (hops >= this.bases.length) throw err;
      }
    }
  }

  /**
   * A POST (reach), sent again after a 429 or 503 (its Retry-After), or when it got no answer and
   * cannot make a run twice (`resendable`), or when no console took its connection.
   */
  private async post(path: string, body: unknown, headers: Record<string, string>, resendable: boolean): Promise<{ status: number; body: unknown }> {
    for (let attempt = 0; ; attempt++) {
      let answer: { status: number; headers: IncomingHttpHeaders; body: unknown } | null;
      try {
        answer = await this.reach('POST', path, body, headers);
      } catch (err) {
        const unsent = err instanceof BatonApiError && neverSent.has(err);
        if (!(err instanceof BatonApiError) || err.status !== 0 || !(resendable || unsent) || attempt >= this.retries) throw err;
        answer = null;
      }
      if (answer && answer.status < 400) return answer;
      const busy = answer !== null && (answer.status === 429 || answer.status === 503);
      if (answer && (!busy || attempt >= this.retries)) throw toError(answer.status, answer.body);
      const wait = answer ? (parseRetryAfter(answer.headers['retry-after'], Date.now()) ?? 100 * 2 ** attempt) : 100 * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, this.maxRetryWaitMs)));
    }
  }

  private request(method: string, path: string, body: unknown, headers: Record<string, string>, at: number): Promise<{ status: number; headers: IncomingHttpHeaders; body: unknown }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = this.send(
        new URL(path, this.bases[at]),
        {
          method,
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { 'x-api-key': this.options.apiKey, accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              // Not JSON (a proxy's page): kept as text for the error.
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
          });
          res.on('error', (err) => reject(new BatonApiError(0, 'UNREACHABLE', err.message)));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const refusal = new BatonApiError(0, 'UNREACHABLE', `${method} ${this.bases[at].origin}${path}: ${err.message}`);
        if (err.code !== undefined && NOT_CONNECTED.has(err.code)) neverSent.add(refusal);
        reject(refusal);
      });
      req.end(payload);
    });
  }
}

function toError(status: number, body: unknown): BatonApiError {
  const b = (typeof body === 'object' && body !== null ? body : { message: String(body) }) as { code?: string; message?: string; errors?: FieldProblem[] };
  return new BatonApiError(status, b.code ?? `HTTP_${status}`, b.message ?? `HTTP ${status}`, b.errors ?? []);
}
