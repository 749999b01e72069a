import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { ExecutorEventEmitter } from './events';
import type { ExecutorOptions } from './options';
import { ExecutorRuntime } from './runtime';

/** A plain Node executor: an HTTP server (node:http) in front of an ExecutorRuntime. */
export interface ExecutorServer {
  readonly runtime: ExecutorRuntime;
  /** Shortcut for `runtime.events`. */
  readonly events: ExecutorEventEmitter;
  /** The URL engines call, once started. */
  readonly url: string | undefined;
  /** The node:http server (e.g. to tune timeouts). */
  readonly server: Server;
  /** Opens the spool (replaying leftovers), listens, starts heartbeats; resolves with the URL engines call. */
  start(): Promise<string>;
  /** Graceful stop (see ExecutorRuntime.stop), then closes the HTTP server. */
  stop(): Promise<void>;
}

/**
 * Creates a standalone executor server. Listens on `host`/`port` (default 127.0.0.1 and an
 * ephemeral port); engines call `publicUrl`, by default the bound URL.
 *
 *     const executor = createExecutorServer({ tenantId, secret, app: 'billing', engineUrls, handlers });
 *     console.log(`READY ${await executor.start()}`);
 *     process.once('SIGTERM', () => void executor.stop().then(() => process.exit(0)));
 */
export function createExecutorServer(options: ExecutorOptions): ExecutorServer {
  const runtime = new ExecutorRuntime(options);
  const server = createServer({ keepAlive: true }, (req, res) => {
    void runtime.serveNode(req, res);
  });
  server.keepAliveTimeout = 65_000; // longer than typical client pools keep idle sockets
  let started: Promise<string> | undefined;
  let stopped: Promise<void> | undefined;
  let url: string | undefined;

  async function start(): Promise<string> {
    await runtime.start();
    const { host, port } = runtime.options;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    url = runtime.options.publicUrl ?? boundUrl(host, address.port);
    runtime.setPublicUrl(url);
    runtime.events.emit('listening', { url });
    return url;
  }

  async function stop(): Promise<void> {
    await runtime.stop();
    await new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    });
  }

  return {
    runtime,
    events: runtime.events,
    server,
    get url() {
      return url;
    },
    start: () => (started ??= start()),
    stop: () => (stopped ??= stop()),
  };
}

function boundUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? hostname() : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}
