import http from 'node:http';
import https from 'node:https';
import { isErrorBody, parseRetryAfter, sign } from '@baton/protocol';

/** The answer of an engine to one request; `status` 0 when no HTTP answer came (network, timeout). */
export interface EngineAnswer {
  url: string;
  status: number;
  body: unknown;
  error?: string;
  /** A 429's `Retry-After`, in ms (an engine refusing a tenant past its bounds says when to come back). */
  retryAfterMs?: number;
}

/** A `Retry-After` longer than this is read as this: a wrong header must not park a callback for hours. */
const MAX_RETRY_AFTER_MS = 60_000;

/** A 429's `Retry-After` in ms, at most MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
function retryAfterMsOf(value: string | undefined): number | undefined {
  const ms = parseRetryAfter(value, Date.now());
  return ms === undefined ? undefined : Math.min(MAX_RETRY_AFTER_MS, ms);
}

/** An engine that gave no answer (or 5xx/429), or was set aside as slow, is tried after the others for this long. */
const FAILED_ENGINE_LAST_MS = 5_000;

/**
 * Signed JSON POSTs to engines over node:http(s) with keep-alive agents — not global fetch,
 * which cost 0.76 ms of CPU per request against 0.19 ms for http.request (client and server in
 * one process, 4,000 small POSTs, 8 at a time; Node 20): an executor sends one callback per run,
 * and on a busy machine that CPU is taken from the engines and the handlers — and the order in
 * which engine base URLs are tried: as given — a dispatch lists its own engine first, so each
 * engine handles the callbacks of the runs it fired and the work of a burst stays spread over
 * the engines that dispatched it (measured: with "last engine that answered first", one of two
 * engines took all 4,000 callbacks of a 4,000-run burst) — except that engines which failed or
 * were too slow to answer (engineRound) in the last few seconds go last. A hanging engine stays
 * last while it keeps hanging: each time it is tried again and does not answer in time, it is
 * set aside anew.
 */
export class EngineClient {
  /** Base URL → until when it is tried last. */
  private readonly failed = new Map<string, number>();
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  constructor(
    private readonly tenantId: string,
    private readonly secret: string,
    private readonly timeoutMs: number,
  ) {}

  /** `urls` deduplicated, in the given order, engines that failed lately last. */
  order(urls: readonly string[]): string[] {
    const unique = [...new Set(urls)];
    if (this.failed.size === 0) return unique;
    const now = Date.now();
    const failedLately = (u: string) => (this.failed.get(u) ?? 0) > now;
    return [...unique.filter((u) => !failedLately(u)), ...unique.filter(failedLately)];
  }

  /** Tries `url` after the others for a while: it did not answer in time (it may still). */
  setAside(url: string): void {
    this.failed.set(url, Date.now() + FAILED_ENGINE_LAST_MS);
  }

  /** POSTs `payload` to `{baseUrl}{path}`, signed over `path`. Never throws. */
  post(baseUrl: string, path: string, payload: unknown): Promise<EngineAnswer> {
    return this.postJson(baseUrl, path, JSON.stringify(payload));
  }

  /** As post, with the JSON text already made. */
  async postJson(baseUrl: string, path: string, body: string): Promise<EngineAnswer> {
    const headers = { ...sign(this.secret, this.tenantId, 'POST', path, body, Date.now()), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const answer = await this.request(baseUrl, path, headers, body);
    if (answer.status >= 200 && answer.status < 500 && answer.status !== 429) this.failed.delete(baseUrl);
    else this.failed.set(baseUrl, Date.now() + FAILED_ENGINE_LAST_MS);
    return answer;
  }

  /** Closes the idle keep-alive connections (the executor is stopping). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private request(baseUrl: string, path: string, headers: Record<string, string>, body: string): Promise<EngineAnswer> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(baseUrl + path);
      } catch {
        resolve({ url: baseUrl, status: 0, body: null, error: `not a URL: ${baseUrl}` });
        return;
      }
      const secure = url.protocol === 'https:';
      const req = (secure ? https : http).request(url, { method: 'POST', headers, agent: secure ? this.agents.https : this.agents.http });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`timed out after ${this.timeoutMs} ms`), { code: 'TIMEOUT' })), this.timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON: keep the text
          }
          const retryAfterMs = res.statusCode === 429 ? retryAfterMsOf(res.headers['retry-after']) : undefined;
          resolve({ url: baseUrl, status: res.statusCode ?? 0, body: parsed, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          resolve({ url: baseUrl, status: 0, body: null, error: err.message });
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ url: baseUrl, status: 0, body: null, error: err.code === 'TIMEOUT' ? err.message : (err.code ?? err.message) });
      });
      req.end(body);
    });
  }
}

/** Short text of an answer for logs/events: status, and the engine's ErrorBody `code` and message when it sent one. */
export function describeAnswer(a: EngineAnswer): string {
  if (a.status === 0) return `${a.url}: ${a.error}`;
  const detail = isErrorBody(a.body) ? ` ${a.body.code}: ${a.body.message}` : '';
  return `${a.url}: HTTP ${a.status}${detail}`;
}
