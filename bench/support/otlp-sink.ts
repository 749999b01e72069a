import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A collector stand-in for benchmarks: takes OTLP/HTTP JSON exports, counts their spans, keeps nothing. */
export interface OtlpSink {
  url: string;
  /** Spans received so far. */
  spans(): number;
  stop(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The OTEL_* environment that makes Baton's processes export to `url`, sampling `ratio` of the traces. */
export function tracingEnv(url: string, ratio: number): Record<string, string> {
  // A queue large enough for a burst's spans: every span is made and sent, so its whole cost is measured.
  return { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(ratio), OTEL_BSP_MAX_QUEUE_SIZE: '20000' };
}
