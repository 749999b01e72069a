import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import { TENANT_MISMATCH_REFUSAL, type DispatchRequest, type ResolveAll } from '@baton/protocol';
import { readEngineConfig } from '../config/engine-config';
import { ExecutorClient, NO_EXECUTOR_OF_TENANT, type SigningTenant } from './executor-client';
import { XxlJobClient } from './xxl-job-client';
import type { ExecutorRegistry } from './executor-registry';
import { noClusterAddresses } from '../testing/no-cluster-addresses';
import { NO_TENANT_REREAD } from '../testing/no-tenant-reread';
import type { TenantDirectory } from '../tenants/tenant-directory';

const tenant = (executorNetworks: string[] | null): SigningTenant => ({
  id: 'acme',
  executorSecret: 'secret',
  executorSecretVersion: 1,
  previousExecutorSecret: null,
  previousSecretExpiresAt: null,
  executorNetworks,
});

const request = { runId: 1, attempt: 1, handler: 'h' } as unknown as DispatchRequest;

describe('the executor client under the outbound policy (issue 21)', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  const accepting = (res: ServerResponse) => res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true,"runId":1,"attempt":1}');
  let answer: (res: ServerResponse) => void = accepting;
  // Each test starts from a server that has heard nothing and accepts: none depends on another's run before it.
  beforeEach(() => {
    hits.length = 0;
    answer = accepting;
  });
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      answer(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const clientResolvingTo = (address: string, tenants = NO_TENANT_REREAD) => {
    const resolve: ResolveAll = (_host, _options, callback) => callback(null, [{ address, family: 4 }]);
    const registry = { secretVersionOf: () => null } as unknown as ExecutorRegistry;
    return new ExecutorClient(readEngineConfig({}, { dispatchTimeoutMs: 2000 }), new ManualClock(0), registry, tenants, new XxlJobClient(readEngineConfig({}, {}), noClusterAddresses()), noClusterAddresses(), resolve);
  };

  it('refuses an executor name that resolves to a metadata address at dispatch time: not sent, the rule named', async () => {
    const client = clientResolvingTo('169.254.169.254');
    try {
      expect(await client.dispatch(`http://exec.example:${port}`, tenant(null), request)).toEqual({
        kind: 'UNAVAILABLE',
        status: null,
        message: 'OUTBOUND_REFUSED: exec.example resolves to an address in link-local (169.254.0.0/16), which Baton never calls',
      });
      expect(hits).toEqual([]);
    } finally {
      client.onApplicationShutdown();
    }
  });

  it('sends to the address a name the tenant list names resolves to, and reads a bounded answer', async () => {
    const client = clientResolvingTo('127.0.0.1');
    try {
      expect(await client.dispatch(`http://exec.example:${port}`, tenant(['exec.example']), request)).toMatchObject({ kind: 'ACCEPTED', status: 202 });
      answer = (res) => res.writeHead(202, { 'content-length': String(64 * 1024 * 1024) }).write('{');
      expect(await client.dispatch(`http://exec.example:${port}`, tenant(['exec.example']), request)).toEqual({ kind: 'UNKNOWN', message: 'the answer was longer than 1048576 bytes' });
    } finally {
      client.onApplicationShutdown();
    }
  });

  it("takes a 2xx for accepted only with a Baton executor's ack of the attempt sent; any other 2xx is no executor of the tenant, its body untold", async () => {
    const client = clientResolvingTo('127.0.0.1');
    const url = `http://exec.example:${port}`;
    const answering = (status: number, body: string) => (answer = (res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    try {
      answering(202, '{"accepted":true,"runId":1,"attempt":1,"credit":3,"creditSeq":7}');
      expect(await client.dispatch(url, tenant(['exec.example']), request)).toEqual({ kind: 'ACCEPTED', status: 202, credit: 3, creditSeq: 7 });
      const foreign: Array<[number, string]> = [
        [200, '<html><body>OK: welcome to nginx</body></html>'],
        [200, '{"ok":true,"id":"abc"}'],
        [202, ''],
        [204, ''],
        [202, '{"accepted":true}'],
        [202, '{"accepted":"yes","runId":1,"attempt":1}'],
        [202, '{"accepted":true,"runId":2,"attempt":1}'],
        [202, '{"accepted":true,"runId":1,"attempt":2}'],
      ];
      for (const [status, body] of foreign) {
        answering(status, body);
        expect(await client.dispatch(url, tenant(['exec.example']), request), `${status} ${body}`).toEqual({ kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT });
      }
      // The batch route alike: a 200 that is no batch reply at all, and a result whose body is no ack of its run.
      answering(200, '{"ok":true}');
      expect(await client.dispatchBatch(url, tenant(['exec.example']), [request])).toEqual([{ kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT }]);
      answering(200, JSON.stringify({ results: [{ runId: 1, attempt: 1, status: 202, body: { ok: true } }] }));
      expect(await client.dispatchBatch(url, tenant(['exec.example']), [request])).toEqual([{ kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT }]);
      answering(200, JSON.stringify({ results: [{ runId: 1, attempt: 1, status: 202, body: { accepted: true, runId: 1, attempt: 1 } }] }));
      expect(await client.dispatchBatch(url, tenant(['exec.example']), [request])).toEqual([{ kind: 'ACCEPTED', status: 202 }]);
    } finally {
      client.onApplicationShutdown();
    }
  });

  it('sends an executor that serves another tenant nothing more (no other secret, no tenant read again) and logs it for the operator; the run reads it as no executor of the tenant', async () => {
    let rereads = 0;
    const tenants = { readAfterRefusal: () => ((rereads += 1), Promise.resolve(undefined)) } as unknown as TenantDirectory;
    const client = clientResolvingTo('127.0.0.1', tenants);
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const url = `http://exec.example:${port}`;
    // In a rotation's window: two secrets, either of which a refused signature is tried with.
    const rotating = { ...tenant(['exec.example']), previousExecutorSecret: 'old-secret', previousSecretExpiresAt: 60_000 };
    const refusing = (body: object) => (answer = (res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    const noExecutor = { kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT };
    try {
      refusing(TENANT_MISMATCH_REFUSAL);
      expect(await client.dispatch(url, rotating, request)).toEqual(noExecutor);
      expect(await client.dispatch(url, rotating, request)).toEqual(noExecutor);
      expect({ sent: hits.length, rereads }).toEqual({ sent: 2, rereads: 0 });
      // One line for both (at most one per tenant and URL every 10 s).
      const lines = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('serves another tenant'));
      expect(lines).toEqual([expect.stringContaining(`executor ${url}, registered for tenant acme, answers that it serves another tenant`)]);

      // The tenant's own executor refusing the signature: signed again with the other secret, then the tenant read again.
      hits.length = 0;
      refusing({ accepted: false, reason: 'UNAUTHORIZED', message: 'signature: the signature does not match (secret, method, path or body differ)' });
      expect(await client.dispatch(url, rotating, request)).toEqual(noExecutor);
      expect({ sent: hits.length, rereads }).toEqual({ sent: 2, rereads: 1 });
    } finally {
      warn.mockRestore();
      client.onApplicationShutdown();
    }
  });
});
