import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector receives it over OTLP/HTTP JSON, with its resource's service.name. */
export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ name: string; traceId: string; spanId: string; parentSpanId?: string; kind: number; attributes?: KeyValue[] }> }>;
  }>;
}

/**
 * A collector's OTLP/HTTP traces endpoint (POST /v1/traces, JSON encoding: what
 * @opentelemetry/exporter-trace-otlp-http sends), keeping every span it receives. `until` waits
 * for the spans a check needs (the exporter sends in batches, whenever its delay passes).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  /** Listens on 127.0.0.1 (any port); resolves with the base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once `check(spans)` is true (re-checked on every export), or rejects after `timeoutMs` with what arrived. */
  until(check: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs = 20_000): Promise<void> {
    if (check(this.spans)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (!check(this.spans)) return;
        this.waiters.delete(waiter);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`spans not received within ${timeoutMs} ms; got: ${this.spans.map((s) => `${s.service}/${s.name}`).join(', ')}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private take(body: ExportRequest): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value));
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            name: s.name,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            kind: s.kind,
            attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          });
        }
      }
    }
    for (const waiter of [...this.waiters]) waiter();
  }
}

function valueOf(v: AnyValue | undefined): string | number | boolean {
  if (!v) return '';
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue ?? '';
}
