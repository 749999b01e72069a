/**
 * The outbound policy as a tenant admin meets it (issue 21 findings 1 and 2): a webhook URL on
 * a range the tenant may not reach is refused when saved, naming the rule; the test button of
 * one saved before the operator narrowed the list says the rule, never what the host answered;
 * with loopback allowed for the tenant, redirects are not followed, answers are bounded and a
 * failure is said in neutral words.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import { WebhookChannelEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';
import { answerEndlessly } from '../support/endless-answer';

const LOOPBACK_REFUSED = '127.0.0.1 is in loopback (127.0.0.0/8), not allowed for this tenant';

describe.each(TEST_DATABASES)('outbound policy for webhooks on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let acme: SeededTenant;
  let consolePort: number;
  let receiver: Server;
  let receiverPort: number;
  const hits: string[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(204).end(),
    '/redirect': (res) => res.writeHead(302, { location: `/api/operator/tenants` }).end(),
    '/endless': answerEndlessly,
  };

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    await t.app.listen(0, '127.0.0.1');
    consolePort = (t.app.getHttpServer().address() as AddressInfo).port;
    operator = await seedOperator(t, db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    receiver = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverPort = (receiver.address() as AddressInfo).port;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await t.close();
  });

  const networks = async (list: string[] | null) => expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ executorNetworks: list })).status).toBe(200);
  const create = (name: string, url: string) => t.http().post('/api/webhooks').set(acme.admin).send({ name, url });
  /** A channel saved before the operator narrowed the tenant's networks (the row as the console wrote it then). */
  const savedEarlier = async (name: string, url: string) =>
    (await db.dataSource.getRepository(WebhookChannelEntity).insert({ tenantId: 'acme', name, url, secret: 'whsec_x', alarmTypes: null, minSeverity: 'WARNING', createdAt: T0 })).identifiers[0].id as number;
  const test = (id: number) => t.http().post(`/api/webhooks/${id}/test`).set(acme.admin);

  it("refuses to save a webhook to the console's own operator API, naming the rule (finding 1)", async () => {
    await networks(['10.99.0.0/16']);
    const res = await create('probe', `http://127.0.0.1:${consolePort}/api/operator/tenants`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'url', reason: LOOPBACK_REFUSED }]);
    const named = await create('named', `http://localhost:${consolePort}/api/operator/tenants`); // judged on what the name resolves to now
    expect(named.status).toBe(400);
    expect(named.body.errors).toEqual([{ field: 'url', reason: 'localhost resolves to an address in loopback (127.0.0.0/8), not allowed for this tenant' }]);
    expect(await db.dataSource.getRepository(WebhookChannelEntity).countBy({ name: In(['probe', 'named']) })).toBe(0);
  });

  it('tests a webhook saved before the list was narrowed: the rule, never what the host answered (finding 1)', async () => {
    await networks(['10.99.0.0/16']);
    const open = await test(await savedEarlier('console', `http://127.0.0.1:${consolePort}/api/operator/tenants`));
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ ok: false, status: null, error: LOOPBACK_REFUSED });
    const closed = await test(await savedEarlier('closed', 'http://127.0.0.1:9/'));
    expect(closed.body).toMatchObject({ ok: false, status: null, error: LOOPBACK_REFUSED });
  });

  it('with loopback allowed for the tenant: delivers, follows no redirect, bounds the answer, fails in neutral words', async () => {
    await networks(['10.99.0.0/16', '127.0.0.1']);
    const ok = await create('ok', `http://127.0.0.1:${receiverPort}/ok`);
    expect(ok.status).toBe(201);
    expect((await test(ok.body.id)).body).toMatchObject({ ok: true, status: 204, error: null });

    const redirect = await create('redirect', `http://127.0.0.1:${receiverPort}/redirect`);
    expect((await test(redirect.body.id)).body).toMatchObject({ ok: false, status: 302, error: 'the endpoint answered with a redirect, which Baton does not follow' });
    expect(hits.filter((h) => h.startsWith('/api/'))).toEqual([]);

    const endless = await create('endless', `http://127.0.0.1:${receiverPort}/endless`);
    // Cut at the bound (the error says so), not left to run to the delivery's timeout.
    expect((await test(endless.body.id)).body).toMatchObject({ ok: false, status: null, error: 'the answer was longer than 65536 bytes' });

    const closed = await create('closed-port', 'http://127.0.0.1:9/');
    expect((await test(closed.body.id)).body).toMatchObject({ ok: false, status: null, error: 'could not connect' });
  });
});
