import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_ADDRESS_REFUSED, refusingLookup, refusingLookupOver } from './refusing-lookup';

/** GET through an agent using `lookup`; the status, or the error code. */
function get(url: string, lookup: typeof refusingLookup): Promise<number | string> {
  const agent = new Agent({ lookup });
  return new Promise((resolve) => {
    request(url, { agent }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
      .end();
  }).finally(() => agent.destroy()) as Promise<number | string>;
}

describe('the lookup of the engine’s executor sockets (issue 12 item 11)', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('connects to a name that resolves to an ordinary address (localhost, the system resolver)', async () => {
    expect(await get(`http://localhost:${port}/ok`, refusingLookup)).toBe(200);
  });

  it('refuses a name that resolves to a metadata or link-local address, before connecting', async () => {
    for (const address of ['169.254.169.254', 'fe80::1', '100.100.100.200']) {
      const family = address.includes(':') ? 6 : 4;
      const resolvesTo = refusingLookupOver((_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }, { address, family }]));
      expect(await get(`http://executor.example:${port}/refused`, resolvesTo)).toBe(EXECUTOR_ADDRESS_REFUSED);
    }
    expect(hits).not.toContain('/refused');
  });

  it('passes resolver errors through', async () => {
    const failing = refusingLookupOver((host, _options, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []));
    expect(await get(`http://nowhere.invalid:${port}/`, failing)).toBe('ENOTFOUND');
  });
});
