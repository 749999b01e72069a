import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditRecordEntity, EventEntity, InboundWebhookEntity, RunEntity } from '@baton/persistence';
import { TenantAdmission, TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING, type AdmissionTicket } from '../../apps/console/src/common/tenant-admission';
import { RetryLaterError } from '../../apps/console/src/common/retry-later-error';
import { EventsService } from '../../apps/console/src/events/events.service';
import { HOOK_KEEP_MS } from '../../apps/console/src/inbound-webhooks/inbound-webhook';
import { purgeTenant } from '../../apps/engine/src/history/purge-pass';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { listenOnLoopback, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

/**
 * Inbound webhooks (apps/console/src/inbound-webhooks): a tenant admin makes a hook; a third
 * party's delivery signed GitHub or Stripe style becomes an event (the POST /api/events path) and
 * starts the subscribed task once, retries included; bad, stale and unknown signatures are 401;
 * tenants see and delete only their own hooks.
 */
const DAY_MS = 24 * 3_600_000;

describe.each(TEST_DATABASES)('inbound webhooks on %s', (kind) => {
  // The tests are the steps of two hooks' lives, in order (made, delivered to, throttled, rotated,
  // deleted): they run in this order even when the suite is shuffled.
  describe('step by step', { shuffle: false }, () => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let task: number;
  let github: { id: number; path: string; secret: string };
  let stripe: { id: number; path: string; secret: string };

  const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');
  const runsOfTask = () => db.dataSource.getRepository(RunEntity).find({ where: { taskId: task }, order: { id: 'ASC' } });
  let deliveries = 0;
  /** A new delivery id each call (GitHub's own are UUIDs), as GitHub sends with each delivery. */
  const deliveryId = () => `d-${++deliveries}`;
  const deliverGithub = (path: string, body: string, headers: Record<string, string> = {}) =>
    t.http().post(path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${hmac(github.secret, body)}`, 'X-GitHub-Delivery': deliveryId(), ...headers }).send(body);
  const stripeHeader = (secret: string, body: string, at = t.clock.now()) => {
    const ts = Math.floor(at / 1000);
    return `t=${ts},v1=${hmac(secret, `${ts}.${body}`)}`;
  };

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: () => undefined, cancelled: () => undefined } });
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    const made = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'on-push', executorApp: 'ci', handler: 'build', trigger: { kind: 'EVENT', event: 'repo.push' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    task = made.body.id;
    await t.http().post('/api/tasks').set(acme.admin).send({ name: 'on-pay', executorApp: 'ci', handler: 'bill', trigger: { kind: 'EVENT', event: 'stripe.event' } });
    const gh = await t.http().post('/api/inbound-webhooks').set(acme.admin).send({ name: 'github', event: 'repo.push', scheme: 'GITHUB' });
    expect(gh.status, JSON.stringify(gh.body)).toBe(201);
    github = gh.body;
    const st = await t.http().post('/api/inbound-webhooks').set(acme.adminKey).send({ name: 'stripe', event: 'stripe.event', scheme: 'STRIPE', secret: 'whsec_chosen_by_the_admin' });
    expect(st.status, JSON.stringify(st.body)).toBe(201);
    stripe = st.body;
  });
  afterAll(() => t?.close());

  it('makes a hook with an unguessable path naming no tenant, shows its secret once, audits it', async () => {
    expect(github.path).toMatch(/^\/api\/hooks\/ih_[A-Za-z0-9_-]{43}$/);
    expect(github.path).not.toContain('acme');
    expect(github.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stripe.secret).toBe('whsec_chosen_by_the_admin');
    const list = await t.http().get('/api/inbound-webhooks').set(acme.admin);
    expect(list.body.map((h: { name: string }) => h.name)).toEqual(['github', 'stripe']);
    expect(JSON.stringify(list.body)).not.toContain(github.secret);
    const audit = await db.dataSource.getRepository(AuditRecordEntity).findBy({ action: 'inbound-webhook.create', tenantId: 'acme' });
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain('whsec_chosen_by_the_admin');
    const bad = await t.http().post('/api/inbound-webhooks').set(acme.admin).send({ name: 'github', event: 'has space', scheme: 'GITHUB', secret: 'short' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['event', 'secret']);
    expect((await t.http().post('/api/inbound-webhooks').set(acme.admin).send({ name: 'github', event: 'x', scheme: 'GITHUB' })).status).toBe(409);
    expect((await t.http().get('/api/inbound-webhooks').set(acme.viewer)).status).toBe(403);
  });

  it('turns a GitHub-style delivery into an event that starts the subscribed task; its redelivery starts nothing', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/app' } });
    const first = await deliverGithub(github.path, body, { 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ created: true, runIds: [expect.any(Number)] });
    const [run] = await runsOfTask();
    expect(run).toMatchObject({ id: first.body.runIds[0], cause: 'EVENT', tenantId: 'acme', params: JSON.parse(body) });
    const event = await db.dataSource.getRepository(EventEntity).findOneByOrFail({ id: first.body.eventId });
    expect(event).toMatchObject({ tenantId: 'acme', name: 'repo.push', idempotencyKey: `h${github.id}:72d3162e-cc78-11e3-81ab-4c9367dc0958` });
    const again = await deliverGithub(github.path, body, { 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ eventId: first.body.eventId, created: false, runIds: first.body.runIds });
    expect(await runsOfTask()).toHaveLength(1);
    const audit = await db.dataSource.getRepository(AuditRecordEntity).findBy({ action: 'inbound-webhook.deliver' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenantId: 'acme', actorKind: 'inboundWebhook', actorName: 'inbound-webhook:github' });
  });

  it('turns a Stripe-style delivery into an event keyed by its id; a retry starts one run', async () => {
    const body = JSON.stringify({ id: 'evt_1PqX', type: 'invoice.paid', data: { object: { amount: 1200 } } });
    const answers = [];
    for (let i = 0; i < 2; i++) answers.push(await t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', stripeHeader(stripe.secret, body)).send(body));
    expect(answers.map((a) => a.status)).toEqual([201, 200]);
    expect(answers[1].body.eventId).toBe(answers[0].body.eventId);
    expect(answers[0].body.runIds).toHaveLength(1);
  });

  it("keys a Stripe-style delivery by an integer id's digits, and refuses an id that cannot be a key naming `id`, storing nothing", async () => {
    const deliverStripe = (body: string) => t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', stripeHeader(stripe.secret, body)).send(body);
    const numbered = JSON.stringify({ id: 4711, type: 'invoice.paid' });
    const answers = [await deliverStripe(numbered), await deliverStripe(numbered), await deliverStripe(JSON.stringify({ id: '4711', type: 'invoice.paid' }))];
    expect(answers.map((a) => a.status)).toEqual([201, 200, 200]);
    expect(new Set(answers.map((a) => a.body.eventId)).size).toBe(1);
    const event = await db.dataSource.getRepository(EventEntity).findOneByOrFail({ id: answers[0].body.eventId });
    expect(event.idempotencyKey).toBe(`h${stripe.id}:4711`);
    const events = await db.dataSource.getRepository(EventEntity).count();
    for (const id of [{ evt: 1 }, [1], true, 1.5, 2 ** 53]) {
      const refused = await deliverStripe(JSON.stringify({ id, type: 'invoice.paid' }));
      expect(refused.status, JSON.stringify(id)).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'id', reason: expect.stringContaining('must be a string or an integer') }]);
    }
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(events);
  });

  it("takes an empty Stripe id as none (a new event each time), and keeps a tenant's own keys out of its hooks' key form", async () => {
    const deliverStripe = (body: string) => t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', stripeHeader(stripe.secret, body)).send(body);
    const empty = JSON.stringify({ id: '', type: 'invoice.paid' });
    const first = await deliverStripe(empty);
    t.clock.advance(1_000); // Stripe signs each delivery at its own time
    const answers = [first, await deliverStripe(empty)];
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[0].body.eventId).not.toBe(answers[1].body.eventId);
    // A key of the hooks' form would answer the hook's delivery of that id with the tenant's own event.
    const own = await t.http().post('/api/events').set(acme.adminKey).send({ name: 'unrelated', idempotencyKey: `h${stripe.id}:evt_collide` });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([{ field: 'idempotencyKey', reason: expect.stringContaining('inbound webhooks') }]);
    const delivered = await deliverStripe(JSON.stringify({ id: 'evt_collide', type: 'invoice.paid' }));
    expect(delivered.status).toBe(201);
  });

  it('refuses a wrong signature, a stale timestamp and an unknown hook with 401; an unknown hook answers as a wrong signature', async () => {
    const body = JSON.stringify({ ref: 'x' });
    const before = await db.dataSource.getRepository(EventEntity).count();
    const wrong = await t.http().post(github.path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${hmac('not-the-secret', body)}`, 'X-GitHub-Delivery': deliveryId() }).send(body);
    expect(wrong.status).toBe(401);
    const unknown = await deliverGithub('/api/hooks/ih_' + 'A'.repeat(43), body);
    const junk = await deliverGithub('/api/hooks/acme', body);
    expect([unknown.status, junk.status]).toEqual([401, 401]);
    expect(unknown.body).toEqual(wrong.body);
    expect(junk.body).toEqual(wrong.body);
    // Signed with the right secret, over another body.
    const tampered = await t.http().post(github.path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${hmac(github.secret, body)}`, 'X-GitHub-Delivery': deliveryId() }).send('{"ref":"y"}');
    expect(tampered.body).toEqual(wrong.body);
    const stale = await t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', stripeHeader(stripe.secret, body, t.clock.now() - 301_000)).send(body);
    expect(stale.status).toBe(401);
    expect(stale.body.message).toContain('300 s');
    const none = await t.http().post(github.path).set('Content-Type', 'application/json').send(body);
    expect(none.status).toBe(401);
    expect(none.body.message).toContain('X-Hub-Signature-256');
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(before);
  });

  it('refuses a GitHub-style delivery without X-GitHub-Delivery with 400 naming it, before its hook is looked up, storing nothing', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/no-id' });
    const before = await db.dataSource.getRepository(EventEntity).count();
    const signed = { 'X-Hub-Signature-256': `sha256=${hmac(github.secret, body)}` };
    for (const path of [github.path, '/api/hooks/ih_' + 'A'.repeat(43)]) {
      for (const id of [undefined, '', '  ']) {
        const res = await t.http().post(path).set('Content-Type', 'application/json').set(id === undefined ? signed : { ...signed, 'X-GitHub-Delivery': id }).send(body);
        expect(res.status, path).toBe(400);
        expect(res.body.errors).toEqual([{ field: 'X-GitHub-Delivery', reason: expect.stringContaining('replay') }]);
      }
    }
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(before);
  });

  it('refuses a captured delivery sent again under another delivery id with 409, storing nothing; its redelivery under its own id answers the first event', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/replayed', after: 'c0ffee' });
    const first = await deliverGithub(github.path, body, { 'X-GitHub-Delivery': 'captured-1' });
    expect(first.status).toBe(201);
    const events = await db.dataSource.getRepository(EventEntity).count();
    const runs = (await runsOfTask()).length;
    for (const headers of [{ 'X-GitHub-Delivery': 'forged-2' }, { 'X-GitHub-Delivery': 'forged-3' }] as Array<Record<string, string>>) {
      const replay = await deliverGithub(github.path, body, headers);
      expect(replay.status, JSON.stringify(replay.body)).toBe(409);
      expect(replay.body.errors).toEqual([{ field: 'X-Hub-Signature-256', reason: expect.stringContaining('taken before') }]);
    }
    // Re-spelt (upper-case hex), it is the same signature.
    const upper = await t.http().post(github.path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${hmac(github.secret, body).toUpperCase()}`, 'X-GitHub-Delivery': 'forged-4' }).send(body);
    expect(upper.status).toBe(409);
    const redelivery = await deliverGithub(github.path, body, { 'X-GitHub-Delivery': 'captured-1' });
    expect(redelivery.status).toBe(200);
    expect(redelivery.body).toEqual({ eventId: first.body.eventId, created: false, runIds: first.body.runIds });
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(events);
    expect(await runsOfTask()).toHaveLength(runs);

    // Stripe style: within its 300 s window, the same signed delivery naming no id is taken once.
    const noId = JSON.stringify({ type: 'invoice.paid', data: { n: 'replayed' } });
    const header = stripeHeader(stripe.secret, noId);
    const send = () => t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', header).send(noId);
    expect((await send()).status).toBe(201);
    const again = await send();
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([{ field: 'Stripe-Signature', reason: expect.stringContaining('taken before') }]);
  });

  it('takes again a delivery whose first try stored nothing (its tenant busy), and forgets a signature once retention lets its events go', async () => {
    const events = t.app.get(EventsService);
    const body = JSON.stringify({ ref: 'refs/heads/retried' });
    const emitOne = vi.spyOn(events, 'emitOne').mockRejectedValueOnce(new RetryLaterError('too many events waiting', 1));
    expect((await deliverGithub(github.path, body, { 'X-GitHub-Delivery': 'retried-1' })).status).toBe(429);
    emitOne.mockRestore();
    expect((await deliverGithub(github.path, body, { 'X-GitHub-Delivery': 'retried-1' })).status).toBe(201);

    // Kept as long as the tenant's events: once purged with them, the signature is taken as new.
    const remembered = () => db.dataSource.query('SELECT tenant_id FROM inbound_webhook_signatures');
    expect((await remembered()).length).toBeGreaterThan(0);
    const ceiling = { runsMs: DAY_MS, logsMs: DAY_MS, alarmsMs: DAY_MS, minRunsKept: 0 };
    const cursor = { tenantId: 'acme', rolledUntil: 0, settledUntil: 0, logsPurgedUntil: 0, purgePosition: 0 };
    const report = await purgeTenant(db.dataSource, 'test', cursor, t.clock.now() + DAY_MS + 1, { ceiling, statsRetentionMs: DAY_MS, auditRetentionMs: 365 * DAY_MS, batch: 2 });
    expect(report.inboundSignatures).toBeGreaterThan(0);
    expect(await remembered()).toEqual([]);
    expect((await deliverGithub(github.path, body, { 'X-GitHub-Delivery': 'retried-3' })).status).toBe(201);
  });

  it('accepts a delivery at the edge of the replay window as the clock moves, and refuses it past', async () => {
    const body = JSON.stringify({ id: 'evt_edge', type: 'x' });
    const header = stripeHeader(stripe.secret, body);
    t.clock.advance(300_000);
    const edge = await t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', header).send(body);
    expect(edge.status).toBe(201);
    t.clock.advance(1_000);
    const past = await t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', header).send(body);
    expect(past.status).toBe(401);
  });

  it('answers 400 for a body that is not a JSON object, 413 past the payload bound', async () => {
    const form = 'payload=%7B%22ref%22%3A1%7D';
    const res = await t.http().post(github.path).set('Content-Type', 'application/x-www-form-urlencoded').set({ 'X-Hub-Signature-256': `sha256=${hmac(github.secret, form)}`, 'X-GitHub-Delivery': deliveryId() }).send(form);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body', reason: expect.stringContaining('application/json') }]);
    // Malformed JSON sent as JSON is told where, with no word about GitHub's content type.
    const malformed = await deliverGithub(github.path, '{"ref":1,}');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ field: 'body', reason: 'malformed JSON: Expected double-quoted property name in JSON at position 9' }]);
    // No content type at all (fetch sends none for bytes): the hint, as for the form.
    const bare = await fetch(`${await listenOnLoopback(t)}${github.path}`, { method: 'POST', headers: { 'X-Hub-Signature-256': `sha256=${hmac(github.secret, form)}`, 'X-GitHub-Delivery': deliveryId() }, body: Buffer.from(form) });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { errors: unknown }).errors).toEqual([{ field: 'body', reason: expect.stringContaining('got no content type; GitHub') }]);
    const list = '[1,2]';
    expect((await deliverGithub(github.path, list)).body.errors).toEqual([{ field: 'body', reason: 'must be a JSON object' }]);
    const big = JSON.stringify({ blob: 'x'.repeat(64_001) });
    const tooBig = await deliverGithub(github.path, big);
    expect(tooBig.status).toBe(413);
  });

  it('keeps a stranger from writing without bound: failures of a hook are counted, then refused without a write', async () => {
    const body = JSON.stringify({ n: 1 });
    const counted = async () => Math.max(0, ...(await db.dataSource.query('SELECT failures FROM login_throttle')).map((r: { failures: number }) => Number(r.failures)));
    const fail = async () => expect((await t.http().post(github.path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}`, 'X-GitHub-Delivery': deliveryId() }).send(body)).status).toBe(401);
    for (let i = 0; i < 5; i++) await fail();
    // The fifth failure started the hook's wait: the next ones are refused without being counted.
    expect(await counted()).toBe(5);
    for (let i = 0; i < 3; i++) await fail();
    expect(await counted()).toBe(5);
    // Once the wait is over, a failure is counted again.
    t.clock.advance(61_000);
    await fail();
    expect(await counted()).toBe(6);
    // The right signature still passes during the wait.
    expect((await deliverGithub(github.path, body)).status).toBe(201);
    expect(await db.dataSource.getRepository(AuditRecordEntity).countBy({ action: 'inbound-webhook.deliver', actorKind: 'inboundWebhook' })).toBeGreaterThan(0);
  });

  it('rotates the secret: the old one is refused, the new one accepted', async () => {
    const rotated = await t.http().post(`/api/inbound-webhooks/${github.id}/secret`).set(acme.admin).send({});
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(github.secret);
    const body = JSON.stringify({ ref: 'after-rotation' });
    expect((await deliverGithub(github.path, body)).status).toBe(401);
    github = { ...github, secret: rotated.body.secret };
    expect((await deliverGithub(github.path, body)).status).toBe(201);
  });

  it('keeps tenants apart: B neither lists, rotates nor deletes A’s hooks', async () => {
    expect((await t.http().get('/api/inbound-webhooks').set(globex.admin)).body).toEqual([]);
    expect((await t.http().delete(`/api/inbound-webhooks/${github.id}`).set(globex.admin)).status).toBe(404);
    expect((await t.http().post(`/api/inbound-webhooks/${github.id}/secret`).set(globex.admin).send({})).status).toBe(404);
    expect((await t.http().get('/api/inbound-webhooks').set(acme.admin)).body).toHaveLength(2);
    expect((await t.http().delete(`/api/inbound-webhooks/${stripe.id}`).set(acme.admin)).status).toBe(204);
    const body = JSON.stringify({ id: 'evt_gone' });
    expect((await t.http().post(stripe.path).set('Content-Type', 'application/json').set('Stripe-Signature', stripeHeader(stripe.secret, body)).send(body)).status).toBe(401);
  });

  it('lists the routes in the OpenAPI document', async () => {
    const doc = (await t.http().get('/api/docs-json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/inbound-webhooks', '/api/inbound-webhooks/{id}', '/api/inbound-webhooks/{id}/secret', '/api/hooks/{publicId}']));
    // The delivery route takes no session or API key (its signature is the credential), answers 201 or 200, and names its headers.
    const deliver = doc.paths['/api/hooks/{publicId}'].post;
    expect(deliver.security).toEqual([]);
    expect(Object.keys(deliver.responses)).toEqual(expect.arrayContaining(['200', '201']));
    const headers = (deliver.parameters as Array<{ in: string; name: string; required: boolean }>).filter((p) => p.in === 'header');
    expect(headers.map((h) => [h.name, h.required]).sort()).toEqual([['Stripe-Signature', false], ['X-GitHub-Delivery', false], ['X-Hub-Signature-256', false]]);
  });
});

  // Deliveries under their tenant's admission, and the hooks kept for a moment: each test starts
  // its own console and hooks.
  describe('a tenant’s admission and the hooks kept', () => {
    const db = useTestDatabase(kind);
    let t: ConsoleTestApp;
    let admission: TenantAdmission;
    const hooks: Record<string, { id: number; path: string; secret: string }> = {};
    const admins: Record<string, SeededTenant['admin']> = {};
    const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');
    const deliver = (path: string, secret: string, deliveryId: string) => {
      const body = JSON.stringify({ deliveryId });
      return t.http().post(path).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${hmac(secret, body)}`, 'X-GitHub-Delivery': deliveryId }).send(body);
    };
    const deliverTo = (tenant: string, deliveryId: string) => deliver(hooks[tenant].path, hooks[tenant].secret, deliveryId);
    const eventsOf = (tenantId: string) => db.dataSource.getRepository(EventEntity).countBy({ tenantId });

    /** Resolves, each time something the tests watch happens, those waiting for it (`until`): no guessed sleeps. */
    const waiting: Array<() => void> = [];
    const happened = () => waiting.splice(0).forEach((wake) => wake());
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise<void>((wake) => waiting.push(wake));
    };

    beforeAll(async () => {
      t = await startConsole(db.dataSource, T0, { wakeups: { wake: () => undefined, cancelled: () => undefined } });
      admission = t.app.get(TenantAdmission);
      for (const tenant of ['acme', 'globex']) {
        const seeded = await seedTenant(t, db.dataSource, tenant);
        admins[tenant] = seeded.admin;
        expect((await t.http().post('/api/tasks').set(seeded.admin).send({ name: 'on-push', executorApp: 'ci', handler: 'build', trigger: { kind: 'EVENT', event: 'repo.push' } })).status).toBe(201);
        const made = await t.http().post('/api/inbound-webhooks').set(seeded.admin).send({ name: 'github', event: 'repo.push', scheme: 'GITHUB' });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        hooks[tenant] = made.body;
      }
    });
    afterAll(() => t?.close());

    it("makes the 9th delivery of a tenant wait for a place, and the one past the waiting line 429, while another tenant's delivery goes through", async () => {
      expect([TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING]).toEqual([8, 256]);
      const events = t.app.get(EventsService);
      const emitOne = events.emitOne.bind(events);
      // acme's deliveries that reach their event are held there until `release`: they keep their places.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const emitted: string[] = [];
      const emitSpy = vi.spyOn(events, 'emitOne').mockImplementation(async (tenantId, ...rest) => {
        emitted.push(tenantId);
        happened();
        if (tenantId === 'acme') await released;
        return emitOne(tenantId, ...rest);
      });
      const entered: string[] = [];
      const enter = admission.enter.bind(admission);
      const enterSpy = vi.spyOn(admission, 'enter').mockImplementation((tenantId) => {
        const ticket = enter(tenantId);
        entered.push(tenantId);
        happened();
        return ticket;
      });
      const count = (list: string[], tenantId: string) => list.filter((id) => id === tenantId).length;
      try {
        const acme = Array.from({ length: TENANT_REQUESTS_IN_FLIGHT + 1 }, (_, i) => deliverTo('acme', `acme-${i}`).then((res) => res));
        // Eight are worked on (held in their event); the ninth has entered the line and waits.
        // (Or a ninth reached its event without waiting: what the check below refuses.)
        await until(() => count(emitted, 'acme') + count(entered, 'acme') >= 2 * TENANT_REQUESTS_IN_FLIGHT + 1 || count(emitted, 'acme') > TENANT_REQUESTS_IN_FLIGHT);
        expect(count(emitted, 'acme')).toBe(TENANT_REQUESTS_IN_FLIGHT);
        expect(admission.of('acme')).toEqual({ inFlight: TENANT_REQUESTS_IN_FLIGHT, waiting: 1 });
        let ninthAnswered = false;
        void acme[TENANT_REQUESTS_IN_FLIGHT].then(() => (ninthAnswered = true));

        // Another tenant's delivery is not behind them.
        const globex = await deliverTo('globex', 'globex-0');
        expect(globex.status, JSON.stringify(globex.body)).toBe(201);
        expect(await eventsOf('globex')).toBe(1);
        expect(ninthAnswered).toBe(false);

        // The line full (8 worked on, 256 waiting): the next delivery of acme is refused, with when to send it again.
        const fillers: AdmissionTicket[] = Array.from({ length: TENANT_REQUESTS_WAITING - 1 }, () => admission.enter('acme'));
        for (const filler of fillers) filler.ready.catch(() => undefined);
        const refused = await deliverTo('acme', 'acme-refused');
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ code: 'TENANT_BUSY' });
        expect(refused.headers['retry-after']).toBe('1');
        // An unknown hook is refused as before, and takes no place (nor keeps anything of its id).
        const enteredBefore = entered.length;
        const unknown = await deliver('/api/hooks/ih_' + 'B'.repeat(43), hooks.acme.secret, 'unknown-0');
        expect(unknown.status).toBe(401);
        expect(entered.length).toBe(enteredBefore);

        for (const filler of fillers) filler.leave();
        expect(admission.of('acme')).toEqual({ inFlight: TENANT_REQUESTS_IN_FLIGHT, waiting: 1 });
        release();
        expect((await Promise.all(acme)).map((res) => res.status)).toEqual(Array(TENANT_REQUESTS_IN_FLIGHT + 1).fill(201));
        expect(await eventsOf('acme')).toBe(TENANT_REQUESTS_IN_FLIGHT + 1);
        expect(ninthAnswered).toBe(true);
      } finally {
        release();
        emitSpy.mockRestore();
        enterSpy.mockRestore();
      }
    });

    it('reads a hook once a second, never keeps an unknown one, and sees a new secret or a deletion through this console at once', async () => {
      const manager = db.dataSource.manager;
      const findOneBy = vi.spyOn(manager, 'findOneBy');
      const hookReads = () => findOneBy.mock.calls.filter(([target]) => target === InboundWebhookEntity).length;
      try {
        t.clock.advance(HOOK_KEEP_MS);
        for (let i = 0; i < 3; i++) expect((await deliverTo('acme', `kept-${i}`)).status).toBe(201);
        expect(hookReads()).toBe(1);
        for (let i = 0; i < 2; i++) expect((await deliver('/api/hooks/ih_' + 'C'.repeat(43), 'whatever-secret', `unknown-${i}`)).status).toBe(401);
        expect(hookReads()).toBe(3);

        // A secret replaced by another console process (straight in the table here): the kept row
        // verifies the old secret until HOOK_KEEP_MS have passed since its read, then no more.
        const old = hooks.acme.secret;
        const newer = 'changed-elsewhere-0123456789';
        await db.dataSource.getRepository(InboundWebhookEntity).update({ id: hooks.acme.id }, { secret: newer });
        t.clock.advance(HOOK_KEEP_MS - 1);
        expect((await deliver(hooks.acme.path, old, 'elsewhere-0')).status).toBe(201);
        t.clock.advance(1);
        expect((await deliver(hooks.acme.path, old, 'elsewhere-1')).status).toBe(401);
        expect((await deliver(hooks.acme.path, newer, 'elsewhere-2')).status).toBe(201);

        // Through this console: a rotation and a deletion take effect on the next delivery.
        const admin = admins.acme;
        const rotated = await t.http().post(`/api/inbound-webhooks/${hooks.acme.id}/secret`).set(admin).send({});
        expect(rotated.status).toBe(200);
        expect((await deliver(hooks.acme.path, newer, 'rotated-0')).status).toBe(401);
        expect((await deliver(hooks.acme.path, rotated.body.secret, 'rotated-1')).status).toBe(201);
        expect((await t.http().delete(`/api/inbound-webhooks/${hooks.acme.id}`).set(admin)).status).toBe(204);
        expect((await deliver(hooks.acme.path, rotated.body.secret, 'deleted-0')).status).toBe(401);
      } finally {
        findOneBy.mockRestore();
      }
    });
  });
});
