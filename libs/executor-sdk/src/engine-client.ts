import { sign } from '@baton/protocol';

/** The answer of an engine to one request; `status` 0 when no HTTP answer came (network, timeout). */
export interface EngineAnswer {
  url: string;
  status: number;
  body: unknown;
  error?: string;
}

/** An engine that gave no answer (or 5xx/429) is tried after the others for this long. */
const FAILED_ENGINE_LAST_MS = 5_000;

/**
 * Signed JSON POSTs to engines (global fetch: undici keeps connections alive), and the order in
 * which engine base URLs are tried: as given — a dispatch lists its own engine first, so each
 * engine handles the callbacks of the runs it fired and the work of a burst stays spread over
 * the engines that dispatched it (measured: with "last engine that answered first", one of two
 * engines took all 4,000 callbacks of a 4,000-run burst) — except that engines which failed in
 * the last few seconds go last.
 */
export class EngineClient {
  /** Base URL → until when it is tried last. */
  private readonly failed = new Map<string, number>();

  constructor(
    private readonly tenantId: string,
    private readonly secret: string,
    private readonly timeoutMs: number,
  ) {}

  /** `urls` deduplicated, in the given order, engines that failed lately last. */
  order(urls: readonly string[]): string[] {
    const unique = [...new Set(urls)];
    const now = Date.now();
    const failedLately = (u: string) => (this.failed.get(u) ?? 0) > now;
    return [...unique.filter((u) => !failedLately(u)), ...unique.filter(failedLately)];
  }

  /** POSTs `payload` to `{baseUrl}{path}`, signed over `path`. Never throws. */
  async post(baseUrl: string, path: string, payload: unknown): Promise<EngineAnswer> {
    const body = JSON.stringify(payload);
    const headers = { ...sign(this.secret, this.tenantId, 'POST', path, body, Date.now()), 'content-type': 'application/json' };
    try {
      const res = await fetch(baseUrl + path, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      if (res.status < 500 && res.status !== 429) this.failed.delete(baseUrl);
      else this.failed.set(baseUrl, Date.now() + FAILED_ENGINE_LAST_MS);
      return { url: baseUrl, status: res.status, body: parsed };
    } catch (err) {
      this.failed.set(baseUrl, Date.now() + FAILED_ENGINE_LAST_MS);
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const detail = e.cause?.code ?? e.cause?.message ?? e.message;
      return { url: baseUrl, status: 0, body: null, error: e.name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : String(detail) };
    }
  }
}

/** Short text of an answer for logs/events. */
export function describeAnswer(a: EngineAnswer): string {
  if (a.status === 0) return `${a.url}: ${a.error}`;
  const msg = a.body && typeof a.body === 'object' && 'message' in a.body ? String((a.body as { message: unknown }).message) : '';
  return `${a.url}: HTTP ${a.status}${msg ? ` ${msg}` : ''}`;
}
