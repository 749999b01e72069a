import { sign } from '@baton/protocol';

/** The answer of an engine to one request; `status` 0 when no HTTP answer came (network, timeout). */
export interface EngineAnswer {
  url: string;
  status: number;
  body: unknown;
  error?: string;
}

/**
 * Signed JSON POSTs to engines (global fetch: undici keeps connections alive), and the order in
 * which engine base URLs are tried: the given ones, the last one that answered first.
 */
export class EngineClient {
  private lastGood: string | null = null;

  constructor(
    private readonly tenantId: string,
    private readonly secret: string,
    private readonly timeoutMs: number,
  ) {}

  /** `urls` deduplicated, the last engine that answered first. */
  order(urls: readonly string[]): string[] {
    const unique = [...new Set(urls)];
    if (this.lastGood && unique.includes(this.lastGood)) return [this.lastGood, ...unique.filter((u) => u !== this.lastGood)];
    return unique;
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
      if (res.status < 500 && res.status !== 429) this.lastGood = baseUrl;
      else if (this.lastGood === baseUrl) this.lastGood = null;
      return { url: baseUrl, status: res.status, body: parsed };
    } catch (err) {
      if (this.lastGood === baseUrl) this.lastGood = null;
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
