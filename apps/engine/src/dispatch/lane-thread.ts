/**
 * What the on-time lane's thread runs (LaneSender): it holds signed dispatch requests until their
 * instant and sends them then, on a keep-alive agent of its own. Its event loop does nothing else,
 * so a timer set for a run's instant fires at it while the engine's main loop is busy with a burst.
 *
 * It is started from this function's source (`new Worker(source, { eval: true })`), so it must be
 * self-contained: no imports, nothing from the enclosing module. The addresses it connects to were
 * resolved and checked against the tenant's networks by the main thread; it never resolves a name.
 *
 * Messages in: { id, pool, url, addresses, headers, body, delayMs, timeoutMs, maxBytes } — sent `delayMs`
 * after the message came (the engine's clock may not be the wall clock: tests run it by hand).
 * Messages out: { id, leftAfterMs, status, body } or { id, leftAfterMs, code, notSent }, leftAfterMs
 * from the message's arrival to the request leaving.
 */
export function laneThread(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- the thread's own source has no module imports (see above) */
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const http = require('node:http') as typeof import('node:http');
  const https = require('node:https') as typeof import('node:https');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Sockets are kept per tenant (`pool` in the agent's key), as the main thread's OutboundAgents
  // keep them: a socket connected to an address one tenant's networks allowed never carries
  // another tenant's request.
  const poolOf = (options: object | undefined) => String((options as { pool?: unknown } | undefined)?.pool ?? '');
  class PooledHttpAgent extends http.Agent {
    override getName(options?: import('node:http').ClientRequestArgs): string {
      return `${super.getName(options)}:${poolOf(options)}`;
    }
  }
  class PooledHttpsAgent extends https.Agent {
    override getName(options?: import('node:https').RequestOptions): string {
      return `${super.getName(options)}:${poolOf(options)}`;
    }
  }
  const agents = { http: new PooledHttpAgent({ keepAlive: true }), https: new PooledHttpsAgent({ keepAlive: true }) };
  const notSentCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

  interface Job {
    id: number;
    /** The tenant: its own keep-alive sockets. */
    pool: string;
    url: string;
    addresses: Array<{ address: string; family: number }>;
    headers: Record<string, string>;
    body: string;
    delayMs: number;
    timeoutMs: number;
    maxBytes: number;
  }

  function send(job: Job, arrived: number): void {
    // The addresses the main thread checked, and no other: the socket never resolves the name itself.
    const lookup = (_host: string, options: { all?: boolean }, callback: (err: null, address: unknown, family?: number) => void): void =>
      options.all ? callback(null, job.addresses) : callback(null, job.addresses[0].address, job.addresses[0].family);
    const leftAfterMs = performance.now() - arrived;
    let done = false;
    const reply = (message: Record<string, unknown>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      parentPort!.postMessage({ id: job.id, leftAfterMs, ...message });
    };
    const https_ = job.url.startsWith('https:');
    const options = {
      method: 'POST',
      agent: https_ ? agents.https : agents.http,
      pool: job.pool,
      headers: { ...job.headers, 'content-length': String(Buffer.byteLength(job.body)) },
      lookup: lookup as unknown as NonNullable<import('node:http').RequestOptions['lookup']>,
    };
    const req = (https_ ? https : http).request(
      job.url,
      options,
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > job.maxBytes) {
            reply({ code: 'ETOOLARGE', notSent: false });
            req.destroy();
          } else chunks.push(chunk);
        });
        res.on('end', () => reply({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('aborted', () => reply({ code: 'ECONNRESET', notSent: false }));
        res.on('error', (err: NodeJS.ErrnoException) => reply({ code: err.code ?? 'EUNKNOWN', notSent: false }));
      },
    );
    const timer = setTimeout(() => {
      reply({ code: 'ETIMEDOUT', notSent: false });
      req.destroy();
    }, job.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => reply({ code: err.code ?? 'EUNKNOWN', notSent: notSentCodes.has(err.code ?? '') }));
    req.end(job.body);
  }

  parentPort!.on('message', (job: Job) => {
    const arrived = performance.now();
    // Never before its instant: a timer may fire a little early by the clock it is checked against.
    const wait = () => {
      const ms = job.delayMs - (performance.now() - arrived);
      if (ms > 0) setTimeout(wait, Math.ceil(ms));
      else send(job, arrived);
    };
    wait();
  });
}
