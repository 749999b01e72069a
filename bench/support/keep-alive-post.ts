import { request, type Agent, type ClientRequest } from 'node:http';

/** A POST sent: the request (to abandon it, or see when it got a socket) and its answer. */
export interface SentPost {
  req: ClientRequest;
  answer: Promise<{ status: number; body: string }>;
}

/**
 * JSON POSTs to `base` through a keep-alive `agent`, with `headers` (an API key): the benchmarks'
 * load generator. node:http rather than fetch: a pool of exactly `maxSockets` connections, and
 * the request at hand while it waits for one of them.
 */
export function keepAlivePost(agent: Agent, base: URL, headers: Record<string, string>): (path: string, body: unknown) => SentPost {
  return (path, body) => {
    const payload = JSON.stringify(body);
    let req!: ClientRequest;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req = request(
        { agent, host: base.hostname, port: base.port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    return { req, answer };
  };
}
