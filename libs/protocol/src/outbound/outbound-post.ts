import { Agent as HttpAgent, request as httpRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { checkingLookup, OUTBOUND_REFUSED, refusal, systemResolveAll, type AddressCheck, type ResolveAll } from './checking-lookup';

/** What a POST Baton makes on a tenant's behalf is, and what bounds it. */
export interface OutboundPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** The policy every address the call would connect to passes first (the IP literal of the URL, or each address its name resolves to). */
  check: AddressCheck;
  /** The whole call — lookup, connect, answer and its body — ends after this many ms. */
  timeoutMs: number;
  /** A longer answer is cut off and the call fails: nobody's endpoint makes Baton buffer without bound. */
  maxResponseBytes: number;
  /** Keep-alive pools to use; absent: a connection of the call's own, closed after it. */
  agents?: OutboundAgents;
  /** Which pool of `agents`: a socket is reused only by calls of the same pool (one per policy, e.g. per tenant), never under another's check. */
  pool?: string;
  /** Resolver in place of the system one (tests). */
  resolve?: ResolveAll;
}

/** Why a call did not bring an answer. `message` never carries an address, port or anything the host sent. */
export interface OutboundFailure {
  failure: 'REFUSED' | 'UNRESOLVED' | 'UNREACHABLE' | 'TIMEOUT' | 'TOO_LARGE' | 'FAILED';
  /** The error code (OUTBOUND_REFUSED, ECONNREFUSED, ETIMEDOUT, …). */
  code: string;
  message: string;
  /** True when the request certainly did not leave (refused, unresolved, no connection). */
  notSent: boolean;
}

/**
 * The answer — every status, redirects included, is one: none is followed — or why there is none.
 * `retryAfter`: its `Retry-After` header as sent (parseRetryAfter), for a caller that sends again.
 */
export type OutboundAnswer = { status: number; body: string; retryAfter?: string } | OutboundFailure;

const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * Keep-alive pools for calls to the same endpoints again and again (an engine's dispatches:
 * connection set-up is most of a dispatch's cost otherwise). A pool is named per call
 * (OutboundPost.pool) and is part of the socket's key, so a socket connected under one policy
 * is never handed to a call judged by another.
 */
export class OutboundAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;

  constructor(options: { maxSockets: number }) {
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets };
    this.http = new (class extends HttpAgent {
      override getName(o?: ClientRequestArgs): string {
        return `${super.getName(o)}:${poolOf(o)}`;
      }
    })(agentOptions);
    this.https = new (class extends HttpsAgent {
      override getName(o?: HttpsRequestOptions): string {
        return `${super.getName(o)}:${poolOf(o)}`;
      }
    })(agentOptions);
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

function poolOf(options: object | undefined): string {
  return String((options as { pool?: unknown } | undefined)?.pool ?? '');
}

/**
 * POSTs `body` to `url` under the outbound policy: the host is resolved once and every address
 * checked (`check`), the socket connects to the checked addresses only, no redirect is followed,
 * the answer's body is read up to `maxResponseBytes` and the whole call ends after `timeoutMs`.
 * No proxy (the environment's HTTP_PROXY is not read: a proxy would connect where the check never
 * looked). Never throws.
 */
export function postOutbound(call: OutboundPost): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    return Promise.resolve(failed('FAILED', 'EINVAL', 'not a URL', true));
  }
  const https = url.protocol === 'https:';
  if (!https && url.protocol !== 'http:') return Promise.resolve(failed('FAILED', 'EINVAL', 'not an http(s) URL', true));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A connection to an IP literal makes no lookup: its address is checked here, once.
  if (isIP(host)) {
    const reason = call.check(host, host);
    if (reason !== null) return Promise.resolve(failure(refusal(reason), call.timeoutMs, call.maxResponseBytes));
  }
  return new Promise((resolve) => {
    let settled = false;
    const agent = call.agents ? (https ? call.agents.https : call.agents.http) : false;
    const options = {
      method: 'POST',
      agent,
      pool: call.pool,
      lookup: checkingLookup(call.check, call.resolve ?? systemResolveAll),
      headers: { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) },
    };
    const req = (https ? httpsRequest : httpRequest)(url, options, (res) => readBounded(res, call.maxResponseBytes, settle, fail));
    const timer = setTimeout(() => fail(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), call.timeoutMs);
    function settle(answer: OutboundAnswer): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    }
    // Settles first: what the socket reports while being torn down is not the reason.
    function fail(err: NodeJS.ErrnoException): void {
      settle(failure(err, call.timeoutMs, call.maxResponseBytes));
      req.destroy();
    }
    req.on('error', fail);
    req.end(call.body);
  });
}

function readBounded(res: IncomingMessage, max: number, settle: (answer: OutboundAnswer) => void, fail: (err: NodeJS.ErrnoException) => void): void {
  const tooLarge = () => Object.assign(new Error('too large'), { code: 'ETOOLARGE' });
  if (Number(res.headers['content-length'] ?? 0) > max) return fail(tooLarge());
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) return fail(tooLarge());
    chunks.push(chunk);
  });
  res.on('end', () => settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] }));
  // A body the host cut off.
  res.on('aborted', () => fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
  res.on('error', fail);
}

/** The kind of failure an error code stands for (also of a call made elsewhere, such as the engine's on-time lane thread). */
export function outboundFailureKind(code: string): OutboundFailure['failure'] {
  if (code === OUTBOUND_REFUSED) return 'REFUSED';
  if (UNRESOLVED.has(code)) return 'UNRESOLVED';
  if (UNREACHABLE.has(code)) return 'UNREACHABLE';
  if (code === 'ETIMEDOUT') return 'TIMEOUT';
  if (code === 'ETOOLARGE') return 'TOO_LARGE';
  return 'FAILED';
}

/** The failure an error stands for, in neutral words. */
function failure(err: NodeJS.ErrnoException, timeoutMs: number, maxResponseBytes: number): OutboundFailure {
  const code = err.code ?? 'EUNKNOWN';
  switch (outboundFailureKind(code)) {
    case 'REFUSED':
      return failed('REFUSED', code, err.message, true);
    case 'UNRESOLVED':
      return failed('UNRESOLVED', code, 'the host name does not resolve', true);
    case 'UNREACHABLE':
      return failed('UNREACHABLE', code, 'could not connect', true);
    case 'TIMEOUT':
      return failed('TIMEOUT', code, `no complete answer within ${timeoutMs} ms`, false);
    case 'TOO_LARGE':
      return failed('TOO_LARGE', code, `the answer was longer than ${maxResponseBytes} bytes`, false);
    default:
      return failed('FAILED', code, code.startsWith('ERR_TLS') || code.includes('CERT') ? 'the TLS handshake failed' : 'the connection failed', false);
  }
}

function failed(kind: OutboundFailure['failure'], code: string, message: string, notSent: boolean): OutboundFailure {
  return { failure: kind, code, message, notSent };
}
