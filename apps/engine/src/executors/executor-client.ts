import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { CLOCK, type Clock, type ExecutorNetworks } from '@baton/domain';
import {
  isTenantMismatch,
  OUTBOUND_RESOLVER,
  outboundFailureKind,
  OutboundAgents,
  PATHS,
  postOutbound,
  sign,
  type AbortRequest,
  type DispatchAck,
  type DispatchBatch,
  type DispatchBatchReply,
  type DispatchRefusal,
  type DispatchRequest,
  type ResolveAll,
} from '@baton/protocol';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { signingSecrets, type TenantSecrets, type VersionedSecret } from '../security/executor-secrets';
import { RefusalLogThrottle } from '../security/refusal-log-throttle';
import { TenantDirectory } from '../tenants/tenant-directory';
import { ClusterAddressGuard } from './cluster-address-guard';
import { ExecutorRegistry } from './executor-registry';
import { XxlJobClient } from './xxl-job-client';

/** What one executor answered to a dispatch. */
export type DispatchAnswer =
  /** 2xx (202 by the protocol) with a DispatchAck of the run sent: the work is on its pool; `credit`: the room it reported left (absent: an older executor). */
  | { kind: 'ACCEPTED'; status: number; credit?: number; creditSeq?: number }
  /** 429: its pool and queue are full; another executor may take it. */
  | { kind: 'BUSY'; status: number }
  /** 4xx other than 429 (unknown handler, bad request, bad signature…): this executor refuses this run. */
  | { kind: 'REJECTED'; status: number; reason: string; message: string }
  /**
   * 5xx (503 = shutting down), a connection that could not be made, or no executor of the tenant
   * there (NO_EXECUTOR_OF_TENANT: not HTTP, not a Baton executor's answer — a 2xx without its
   * DispatchAck too —, a refused signature): it never got the run; try another. `status` null but
   * for a Baton executor's own 5xx.
   */
  | { kind: 'UNAVAILABLE'; status: number | null; message: string }
  /**
   * No answer after the request may have been sent (timeout, connection reset): the executor may
   * have started the run. Only the same executor may be asked again (it de-duplicates by run and
   * attempt); sending it to another could run the handler twice.
   */
  | { kind: 'UNKNOWN'; message: string };

/**
 * Longest answer read from an executor: a full batch's reply (MAX_RUNS_PER_DISPATCH_BATCH runs,
 * each a short ack or refusal) is a few tens of kB; past this the executor is not speaking the
 * protocol, and the engine does not buffer it.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;


/** A tenant's id, its executor secrets (current, and previous during a rotation's overlap window) and where its executors may live. */
export interface SigningTenant extends TenantSecrets {
  id: string;
  executorNetworks: ExecutorNetworks;
  /** The access token its XXL-JOB executors take (XxlJobClient); null or absent: none. */
  xxlJobAccessToken?: string | null;
}

/**
 * Signed engine → executor HTTP: dispatch and abort, under the outbound policy (postOutbound):
 * keep-alive pools per tenant (connection set-up is most of a dispatch's cost otherwise), at
 * least `slots` sockets per executor so that every slot can be in flight at once, the dispatch
 * timeout on the whole call and answers bounded. Redirects are never followed (a redirecting
 * executor URL is a misconfiguration: rejected). No request goes to a URL the tenant's networks
 * refuse, nor to an address its host name resolves to that they refuse (checkOutboundAddress).
 *
 * Which secret signs: an executor knows one secret, and during a rotation's overlap window a
 * tenant has two. The secret that verified the executor's latest heartbeat — recorded on its
 * row by whichever engine took the heartbeat, read here through the routing table — is the one
 * it verifies with, so that signs. An executor restarted with the new secret since the table was
 * read answers 401 to it; that request is re-signed once with the other accepted secret (a 401
 * means the executor refused it before doing anything, so asking again cannot run it twice). A
 * rotation reaches the engine's cached tenant only within its TTL: an executor restarted on the
 * new secret within seconds of the rotation refuses every secret the engine knows, so the tenant
 * is read again (TenantDirectory.readAfterRefusal, waiting up to a second for its turn) and the
 * request signed with the secrets it did not know yet — without that, the run failed "rejected by
 * every executor". An executor that answers it serves another tenant (TENANT_MISMATCH_REFUSAL) is
 * sent nothing more: no secret of this tenant will do there. The run reads it as no executor of
 * the tenant, as any 401; the operator's log names the tenant and the URL.
 */
@Injectable()
export class ExecutorClient implements OnApplicationShutdown {
  private readonly logger = new Logger('ExecutorClient');
  /** One line per tenant and URL every 10 s at most: a stale registration is refused each run. */
  private readonly mismatchLog = new RefusalLogThrottle(10_000);
  private readonly agents: OutboundAgents;
  private readonly timeoutMs: number;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly registry: ExecutorRegistry,
    private readonly tenants: TenantDirectory,
    private readonly xxl: XxlJobClient,
    private readonly guard: ClusterAddressGuard,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve?: ResolveAll,
  ) {
    this.agents = new OutboundAgents({ maxSockets: Math.max(config.slots, 16) });
    this.timeoutMs = config.dispatchTimeoutMs;
  }

  /** POSTs a DispatchRequest to `{executorUrl}/baton/runs`. Never throws. */
  async dispatch(executorUrl: string, tenant: SigningTenant, request: DispatchRequest): Promise<DispatchAnswer> {
    return dispatchAnswer(await this.post(executorUrl, PATHS.dispatch, tenant, request, traceHeader(request)), request);
  }

  /**
   * POSTs several runs for one executor to `{executorUrl}/baton/runs/batch`: one answer per run,
   * in order — or `null` when the executor has no batch route (404) or the batch is too large for
   * it (413): send those runs one by one. A 200 that is no DispatchBatchReply at all (no `results`
   * list: not a Baton executor's) leaves every run NO_EXECUTOR_OF_TENANT; a reply with results
   * that cannot be read leaves every run UNKNOWN (the executor may have started them: only it may
   * be asked again). Never throws.
   */
  async dispatchBatch(executorUrl: string, tenant: SigningTenant, requests: readonly DispatchRequest[]): Promise<DispatchAnswer[] | null> {
    const batch: DispatchBatch = { runs: [...requests] };
    const answer = await this.post(executorUrl, PATHS.dispatchBatch, tenant, batch);
    if ('error' in answer) return requests.map(() => noAnswer(answer));
    if (answer.status === 404 || answer.status === 413) return null;
    if (answer.status !== 200) return requests.map((request) => answerOf(answer.status, parse(answer.body), request));
    const results = (parse(answer.body) as Partial<DispatchBatchReply> | null)?.results;
    if (!Array.isArray(results)) return requests.map(() => notBaton());
    const readable =
      Array.isArray(results) &&
      results.length === requests.length &&
      results.every((r, i) => r && r.runId === requests[i].runId && r.attempt === requests[i].attempt && Number.isInteger(r.status));
    if (!readable) return requests.map(() => ({ kind: 'UNKNOWN', message: `unreadable batch reply (HTTP ${answer.status})` }));
    return results.map((r, i) => answerOf(r.status, r.body, requests[i]));
  }

  /**
   * A dispatch request to `{executorUrl}/baton/runs` signed now with the secret the executor is
   * known to verify with, for a sender of its own (the on-time lane's thread), or why none may go.
   * Its answer reads as `dispatch`'s would (`dispatchAnswer`); a 401 is for `dispatch`, which
   * tries the other accepted secret.
   */
  prepareDispatch(executorUrl: string, tenant: SigningTenant, request: DispatchRequest): { url: string; headers: Record<string, string>; body: string } | { error: string } {
    const verdict = this.guard.verdict(executorUrl, tenant.executorNetworks);
    if (!verdict.ok) return { error: `EXECUTOR_URL_REFUSED: ${verdict.reason}` };
    const body = JSON.stringify(request);
    const [secret] = signingSecrets(tenant, this.registry.secretVersionOf(tenant.id, executorUrl), this.clock.now());
    return { ...this.signed(executorUrl, PATHS.dispatch, tenant, secret.secret, body, traceHeader(request)), body };
  }

  /**
   * POSTs an AbortRequest to `{executorUrl}/baton/runs/{id}/abort`; the HTTP status, or null when none came. Never throws.
   * An XXL-JOB executor (as of the routing table) is sent `kill` of the run's job, `taskId`, instead
   * (200 when it answered code 200, else 404) — but not for REPLACED: the run that replaces it went
   * with COVER_EARLY, which ended this one already, and a kill now would end the new one.
   */
  async abort(executorUrl: string, tenant: SigningTenant, request: AbortRequest, taskId: number): Promise<number | null> {
    return (await this.abortAnswer(executorUrl, tenant, request, taskId))?.status ?? null;
  }

  /**
   * `abort`, with the attempt's `state` its executor answered (202: QUEUED or RUNNING, 404:
   * FINISHED or UNKNOWN; docs/EXECUTOR-PROTOCOL.md) — null when the body names none (an XXL-JOB
   * kill, an executor's own error). Never throws.
   */
  async abortAnswer(executorUrl: string, tenant: SigningTenant, request: AbortRequest, taskId: number): Promise<{ status: number; state: string | null } | null> {
    if (this.registry.wireOf(tenant.id, executorUrl) === 'xxl-job') {
      if (request.reason === 'REPLACED') return { status: 200, state: null };
      return { status: (await this.xxl.kill(executorUrl, tenant, taskId)) ? 200 : 404, state: null };
    }
    const answer = await this.post(executorUrl, PATHS.abort(request.runId), tenant, request);
    if ('error' in answer) return null;
    const state = (parse(answer.body) as { state?: unknown } | null)?.state;
    return { status: answer.status, state: typeof state === 'string' ? state : null };
  }

  onApplicationShutdown(): void {
    this.agents.destroy();
  }

  private async post(baseUrl: string, path: string, tenant: SigningTenant, payload: unknown, extra?: Record<string, string>): Promise<Answer> {
    // The last gate before a signed request leaves: the registry filtered candidates already,
    // but aborts go to the URL a run row names, which the operator may have refused since.
    const verdict = this.guard.verdict(baseUrl, tenant.executorNetworks);
    if (!verdict.ok) return { error: `EXECUTOR_URL_REFUSED: ${verdict.reason}`, notSent: true };
    const body = JSON.stringify(payload);
    const version = this.registry.secretVersionOf(tenant.id, baseUrl);
    const tried = new Set<string>();
    const signedAt = this.clock.now();
    const sendWith = (secret: string) => this.send(baseUrl, path, tenant, secret, body, extra);
    // Non-null: the signing secrets hold the current one at least, and none was tried yet.
    const first = (await this.sendUntilTaken(signingSecrets(tenant, version, signedAt), tried, sendWith))!;
    if (servesAnotherTenant(first)) this.warnServesAnotherTenant(tenant.id, baseUrl);
    if (!refusedSignature(first)) return first;
    const reread = await this.tenants.readAfterRefusal(tenant.id, signedAt, true).catch(() => undefined);
    if (!reread) return first;
    const again = await this.sendUntilTaken(signingSecrets(reread, version, this.clock.now()), tried, sendWith);
    return again ?? first;
  }

  /** Sends signed with each secret not `tried` yet, in order, until the executor does not refuse the signature; the last answer (null: none left to try). */
  private async sendUntilTaken(secrets: readonly VersionedSecret[], tried: Set<string>, sendWith: (secret: string) => Promise<Answer>): Promise<Answer | null> {
    let answer: Answer | null = null;
    for (const { secret } of secrets) {
      if (tried.has(secret)) continue;
      tried.add(secret);
      answer = await sendWith(secret);
      if (!refusedSignature(answer)) break;
    }
    return answer;
  }

  private warnServesAnotherTenant(tenantId: string, baseUrl: string): void {
    const refused = this.mismatchLog.refused(`${tenantId} ${baseUrl}`, this.clock.now());
    if (refused === 0) return;
    this.logger.warn(
      `executor ${baseUrl}, registered for tenant ${tenantId}, answers that it serves another tenant (x-baton-tenant): another tenant's executor has its address now, or it runs with another BATON_TENANT; each run sent there is tried on another executor of the tenant — ${refused} such answers since the last such line`,
      { tenantId, executorUrl: baseUrl, reason: 'TENANT_MISMATCH', refused },
    );
  }

  private async send(baseUrl: string, path: string, tenant: SigningTenant, secret: string, body: string, extra?: Record<string, string>): Promise<Answer> {
    const answer = await postOutbound({
      ...this.signed(baseUrl, path, tenant, secret, body, extra),
      body,
      check: this.guard.check(baseUrl, tenant.executorNetworks),
      timeoutMs: this.timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
      agents: this.agents,
      pool: tenant.id,
      resolve: this.resolve,
    });
    if ('status' in answer) return answer;
    // A refusal by the policy names its rule, as a webhook's does; anything else only what kind of failure it was.
    if (answer.failure === 'REFUSED') return { error: `${answer.code}: ${answer.message}`, notSent: true };
    return executorFailure(answer, { timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES });
  }

  /** Where a POST of `body` to `path` goes, and its headers signed now with `secret` (plus `extra`, unsigned). */
  private signed(baseUrl: string, path: string, tenant: SigningTenant, secret: string, body: string, extra?: Record<string, string>): { url: string; headers: Record<string, string> } {
    return {
      url: baseUrl.replace(/\/+$/, '') + path,
      headers: { ...extra, ...sign(secret, tenant.id, 'POST', path, body, this.clock.now()), 'content-type': 'application/json' },
    };
  }
}

/**
 * An executor's answer to one signed POST, or the failure that left none: `error` the text the
 * run's error and alarm show, `notSent` true when no executor can have taken the run (it did not
 * leave, or what answered does not speak HTTP).
 */
type Answer = { status: number; body: string } | { error: string; notSent: boolean };

/** 401: the executor refused the request's signature before doing anything with it (so it may be signed again and resent), not its tenant. */
function refusedSignature(answer: Answer): boolean {
  return 'status' in answer && answer.status === 401 && !servesAnotherTenant(answer);
}

/** 401 TENANT_MISMATCH_REFUSAL: the executor serves another tenant, so no secret of this one will do. */
function servesAnotherTenant(answer: Answer): boolean {
  return 'status' in answer && answer.status === 401 && isTenantMismatch(parse(answer.body));
}

/** A single dispatch's W3C `traceparent` header (the run's, also in its body), for proxies and agents that read headers. */
function traceHeader(request: DispatchRequest): Record<string, string> | undefined {
  return request.traceparent ? { traceparent: request.traceparent } : undefined;
}

/** What an executor's answer to a single dispatch of `sent` says: its status and body, or the failure that left none. */
export function dispatchAnswer(answer: { status: number; body: string } | { error: string; notSent: boolean }, sent: SentAttempt): DispatchAnswer {
  return 'error' in answer ? noAnswer(answer) : answerOf(answer.status, parse(answer.body), sent);
}

/** The run and attempt a dispatch sent: a Baton executor's ack names them. */
type SentAttempt = Pick<DispatchRequest, 'runId' | 'attempt'>;

/**
 * What the engine says of an executor URL at which no executor of the tenant answered: one text
 * for a connection refused or unreachable, an answer that is not HTTP, an HTTP answer that is not
 * a Baton executor's (no DispatchRefusal body: docs/EXECUTOR-PROTOCOL.md), and a Baton executor
 * refusing the tenant's signature (401: another tenant's, or one on a secret the tenant no longer
 * has). Never an error code, a status or what the host sent: a tenant that points an executor URL
 * at a port of a host the engines reach learns nothing from its runs that tells those apart.
 */
export const NO_EXECUTOR_OF_TENANT =
  "no executor of this tenant answered: could not connect, the answer was not HTTP, or it was not a Baton executor's (or the executor refused the tenant's executor secret)";

/**
 * A failed call to an executor (its error code, and whether the request surely did not leave) as
 * the run is told it — a few fixed texts, never the code: an answer that is not HTTP (`HPE_…`, a
 * parser error) is not an executor's, which could not have taken the run, so it reads as nothing
 * there (NO_EXECUTOR_OF_TENANT); a timeout, an answer too long, or a connection closed before an
 * answer may follow a request an executor took (UNKNOWN).
 */
export function executorFailure(failure: { code: string; notSent: boolean }, bounds: { timeoutMs: number; maxBytes: number }): { error: string; notSent: boolean } {
  const kind = outboundFailureKind(failure.code);
  if (kind === 'UNREACHABLE' || failure.code.startsWith('HPE_')) return { error: NO_EXECUTOR_OF_TENANT, notSent: true };
  if (kind === 'UNRESOLVED') return { error: 'the host name does not resolve', notSent: true };
  if (kind === 'TIMEOUT') return { error: `no complete answer within ${bounds.timeoutMs} ms`, notSent: false };
  if (kind === 'TOO_LARGE') return { error: `the answer was longer than ${bounds.maxBytes} bytes`, notSent: false };
  return { error: 'the connection failed before an answer', notSent: failure.notSent };
}

/**
 * A DispatchAck of the attempt sent (`{"accepted": true, "runId", "attempt", …}`): the body of
 * every Baton executor's 2xx to a dispatch (the Node, Go and Java SDKs and the Python example,
 * a duplicate's answer too). A 2xx without it — a web server, a proxy's page, another service
 * answering `200 OK` to any POST — took nothing: counted as accepted, the run waited for a
 * callback that never came, until its timeout.
 */
function batonAck(body: unknown, sent: SentAttempt): DispatchAck | null {
  const ack = body as Partial<DispatchAck> | null;
  return ack !== null && typeof ack === 'object' && ack.accepted === true && ack.runId === sent.runId && ack.attempt === sent.attempt ? (ack as DispatchAck) : null;
}

/** A DispatchRefusal (`{"accepted": false, "reason", "message"}`): the body of every error answer of a Baton executor. */
function batonRefusal(body: unknown): DispatchRefusal | null {
  const refusal = body as Partial<DispatchRefusal> | null;
  return refusal !== null && typeof refusal === 'object' && refusal.accepted === false && typeof refusal.reason === 'string' && typeof refusal.message === 'string' ? (refusal as DispatchRefusal) : null;
}

/**
 * What one run's status and body (a DispatchAck of `sent` or a DispatchRefusal) say, single or
 * batched alike. A 2xx that is no Baton executor's ack of `sent`, an error answer that is no Baton
 * executor's refusal, or a refused signature, is NO_EXECUTOR_OF_TENANT: its body is never copied
 * into the run's error or alarm.
 */
function answerOf(status: number, body: unknown, sent: SentAttempt): DispatchAnswer {
  if (status >= 200 && status < 300) {
    const ack = batonAck(body, sent);
    if (ack === null) return notBaton();
    const credit = ack.credit;
    if (!Number.isInteger(credit) || (credit as number) < 0) return { kind: 'ACCEPTED', status };
    return Number.isInteger(ack.creditSeq) ? { kind: 'ACCEPTED', status, credit, creditSeq: ack.creditSeq } : { kind: 'ACCEPTED', status, credit };
  }
  const refusal = batonRefusal(body);
  if (refusal === null || status === 401) return notBaton();
  if (status === 429) return { kind: 'BUSY', status };
  const message = refusal.message.slice(0, 200) || `HTTP ${status}`;
  if (status >= 500 || status === 408) return { kind: 'UNAVAILABLE', status, message };
  return { kind: 'REJECTED', status, reason: refusal.reason, message };
}

/** What answered is not a Baton executor of the tenant: it never got the run. */
function notBaton(): DispatchAnswer {
  return { kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT };
}

function noAnswer(failure: { error: string; notSent: boolean }): DispatchAnswer {
  return failure.notSent ? { kind: 'UNAVAILABLE', status: null, message: failure.error } : { kind: 'UNKNOWN', message: failure.error };
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
