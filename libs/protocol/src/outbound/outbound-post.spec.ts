import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressCheck, ResolveAll } from './checking-lookup';
import { OutboundAgents, postOutbound, type OutboundPost } from './outbound-post';
import { refusalOf } from './url-refusal';
import { answerEndlessly } from '../../../../test/support/endless-answer';

/** A policy for these tests: loopback allowed, link-local (the metadata address) refused. */
const check: AddressCheck = (host, address) => (address.startsWith('169.254.') ? `${host} is refused` : null);

/** A resolver that answers `address` for every name, counting its calls. */
function resolvingTo(...addresses: string[]): ResolveAll & { calls: number } {
  const resolve = ((_host, _options, callback) => {
    resolve.calls++;
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as ResolveAll & { calls: number };
  resolve.calls = 0;
  return resolve;
}

describe('postOutbound: the outbound policy on the wire (issue 21)', () => {
  let server: Server;
  let port: number;
  const hits: Array<{ path: string; host: string | undefined }> = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.writeHead(204).end(),
    '/redirect': (_req, res) => res.writeHead(302, { location: '/secret' }).end(),
    '/busy': (_req, res) => res.writeHead(429, { 'retry-after': '3' }).end(),
    '/secret': (_req, res) => res.end('secret'),
    '/endless': (_req, res) => answerEndlessly(res),
    '/declared-huge': (_req, res) => res.writeHead(200, { 'content-length': String(1e9) }).write('x'),
    '/drip': (_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(timer));
    },
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push({ path: req.url ?? '', host: req.headers.host });
      req.resume();
      (routes[req.url ?? ''] ?? ((_q, r: ServerResponse) => r.writeHead(404).end()))(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const post = (url: string, extra: Partial<OutboundPost> = {}) => postOutbound({ url, body: '{}', headers: {}, check, timeoutMs: 2000, maxResponseBytes: 1024, ...extra });

  it('refuses a name whose address is refused at send time, though it resolved elsewhere when saved (169.254.169.254.nip.io)', async () => {
    const url = `http://169.254.169.254.nip.io:${port}/ok`;
    expect(await refusalOf(url, check, { resolve: resolvingTo('127.0.0.1') })).toBeNull(); // saved: resolved to an allowed address
    const answer = await post(url, { resolve: resolvingTo('169.254.169.254') }); // sent: the name now answers the metadata address
    expect(answer).toEqual({ failure: 'REFUSED', code: 'OUTBOUND_REFUSED', message: '169.254.169.254.nip.io is refused', notSent: true });
    expect(await refusalOf(url, check, { resolve: resolvingTo('169.254.169.254') })).toBe('169.254.169.254.nip.io is refused');
  });

  it('refuses the name when any one of its addresses is refused, and connects to the checked address (one lookup, no second resolution)', async () => {
    expect(await post(`http://hooks.example:${port}/ok`, { resolve: resolvingTo('127.0.0.1', '169.254.169.254') })).toMatchObject({ failure: 'REFUSED' });
    const resolve = resolvingTo('127.0.0.1');
    expect(await post(`http://hooks.example:${port}/ok`, { resolve })).toEqual({ status: 204, body: '' });
    expect(resolve.calls).toBe(1);
    expect(hits.at(-1)).toEqual({ path: '/ok', host: `hooks.example:${port}` });
  });

  it('checks an IP literal itself (no lookup is made for one)', async () => {
    expect(await post(`http://127.0.0.1:${port}/ok`, { check: (host) => `${host} is refused` })).toMatchObject({ failure: 'REFUSED', message: '127.0.0.1 is refused' });
    expect(await post(`http://[::ffff:7f00:1]:${port}/ok`, { check: (host) => `${host} is refused` })).toMatchObject({ failure: 'REFUSED' });
  });

  it("hands back an answer's Retry-After as sent", async () => {
    expect(await post(`http://127.0.0.1:${port}/busy`)).toEqual({ status: 429, body: '', retryAfter: '3' });
  });

  it('follows no redirect', async () => {
    const before = hits.filter((h) => h.path === '/secret').length;
    expect(await post(`http://127.0.0.1:${port}/redirect`)).toEqual({ status: 302, body: '' });
    expect(hits.filter((h) => h.path === '/secret').length).toBe(before);
  });

  it('bounds the answer: an endless or over-long body fails the call', async () => {
    // Within the test's timeout, though the call's is 60 s: the size bound cut it.
    expect(await post(`http://127.0.0.1:${port}/endless`, { timeoutMs: 60_000 })).toEqual({ failure: 'TOO_LARGE', code: 'ETOOLARGE', message: 'the answer was longer than 1024 bytes', notSent: false });
    expect(await post(`http://127.0.0.1:${port}/declared-huge`, { timeoutMs: 60_000 })).toMatchObject({ failure: 'TOO_LARGE' });
  });

  it('bounds the time of the whole call: a host that drips its answer is cut off', async () => {
    // The host never stops dripping (a byte every 20 ms): only a bound on the whole call ends it.
    expect(await post(`http://127.0.0.1:${port}/drip`, { timeoutMs: 300, maxResponseBytes: 1e6 })).toEqual({ failure: 'TIMEOUT', code: 'ETIMEDOUT', message: 'no complete answer within 300 ms', notSent: false });
  });

  it('says what failed in neutral words: no address, no port', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const answer = await post(`http://127.0.0.1:${closedPort}/`);
    expect(answer).toEqual({ failure: 'UNREACHABLE', code: 'ECONNREFUSED', message: 'could not connect', notSent: true });
    const failing: ResolveAll = (host, _o, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    expect(await post('http://nowhere.invalid/', { resolve: failing })).toEqual({ failure: 'UNRESOLVED', code: 'ENOTFOUND', message: 'the host name does not resolve', notSent: true });
  });

  it('reuses a keep-alive socket within a pool, never across pools (each pool is one policy)', async () => {
    const agents = new OutboundAgents({ maxSockets: 4 });
    const connections = new Set<unknown>();
    const seen = (req: IncomingMessage) => connections.add(req.socket);
    server.on('request', seen);
    try {
      for (const pool of ['a', 'a', 'b', 'b']) expect(await post(`http://127.0.0.1:${port}/ok`, { agents, pool })).toMatchObject({ status: 204 });
      expect(connections.size).toBe(2);
    } finally {
      server.off('request', seen);
      agents.destroy();
    }
  });
});
