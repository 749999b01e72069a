import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PATHS, sign } from '@baton/protocol';

/** HTTP helpers of the cluster tests: engine metrics, signed executor status queries, a recording proxy. */

/** A free TCP port on 127.0.0.1 (bound, read, released: for a process that must be told its port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** GET /metrics of an engine as `name{labels}` → value (comments skipped). */
export async function engineMetrics(engineUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${engineUrl}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    samples.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return samples;
}

/** What an executor knows of a run: signed `GET /baton/runs/{id}` (the protocol's status query). */
export async function executorRunStatus(
  executorUrl: string,
  tenant: { id: string; executorSecret: string },
  runId: number,
): Promise<{ status: number; body: { runId: number; attempts: Array<{ attempt: number; state: string; outcome?: string; startedAt?: number; finishedAt?: number }> } }> {
  const path = PATHS.status(runId);
  const res = await fetch(`${executorUrl.replace(/\/+$/, '')}${path}`, { headers: { ...sign(tenant.executorSecret, tenant.id, 'GET', path, '', Date.now()) } });
  return { status: res.status, body: (await res.json()) as never };
}

/** POSTs raw bytes with the given headers (a callback, forged or replayed); the status and the JSON answer. */
export async function postRaw(url: string, headers: Record<string, string>, body: string | Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

/** One request that went through a RecordingProxy, with the target's answer. */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
  answer: string;
  at: number;
}

/**
 * A reverse proxy in the test process in front of an engine: executors call back through it
 * (the engine's BATON_ENGINE_URL points here), and it keeps every request and answer — so a
 * test can replay a real, validly signed callback byte for byte.
 */
export class RecordingProxy {
  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly url: string,
    /** Every request answered so far, oldest first. */
    readonly requests: ProxiedRequest[],
  ) {}

  static async start(target: { host: string; port: number }, port = 0): Promise<RecordingProxy> {
    const requests: ProxiedRequest[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const upstream = httpRequest(
          { host: target.host, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: `${target.host}:${target.port}` } },
          (up) => {
            const out: Buffer[] = [];
            up.on('data', (c: Buffer) => out.push(c));
            up.on('end', () => {
              const answer = Buffer.concat(out);
              requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, status: up.statusCode ?? 0, answer: answer.toString('utf8'), at: Date.now() });
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.end(answer);
            });
          },
        );
        upstream.on('error', (err) => {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: `proxy: ${err.message}` }));
        });
        upstream.end(body);
      });
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    const { port: bound } = server.address() as AddressInfo;
    return new RecordingProxy(server, `http://127.0.0.1:${bound}`, requests);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
