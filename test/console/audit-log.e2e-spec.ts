import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

interface Row {
  id: number;
  at: number;
  tenantId: string | null;
  actor: { kind: string; name: string; address: string | null };
  action: string;
  objectType: string;
  objectId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

describe.each(TEST_DATABASES)('audit log API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let alpha: SeededTenant;
  let bravo: SeededTenant;
  let operator: Credentials;
  let taskId: number;
  let clearKey: string;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    alpha = await seedTenant(t, db.dataSource, 'alpha');
    bravo = await seedTenant(t, db.dataSource, 'bravo');
    operator = await seedOperator(t, db.dataSource);
    taskId = (await t.http().post('/api/tasks').set(alpha.admin).send(cronTask('audited'))).body.id;
    t.clock.advance(1000);
    await t.http().patch(`/api/tasks/${taskId}`).set(alpha.adminKey).send({ priority: 9 });
    clearKey = (await t.http().post('/api/api-keys').set(alpha.admin).send({ name: 'ci' })).body.key;
    await t.http().post('/api/webhooks').set(bravo.admin).send({ name: 'hook', url: 'https://hooks.example.com/x' });
    await t.http().post('/api/operator/engine-groups').set(operator).send({ name: 'night' });
  });
  afterAll(() => t?.close());

  const page = async (creds: Credentials, query: Record<string, string> = {}, path = '/api/audit') => {
    const res = await t.http().get(path).query(query).set(creds);
    expect(res.status).toBe(200);
    return res.body as { items: Row[]; nextCursor: string | null };
  };

  it("shows a tenant admin its tenant's records, newest first, who and from where, before and after", async () => {
    const { items } = await page(alpha.admin);
    expect(items.every((r) => r.tenantId === 'alpha')).toBe(true);
    const update = items.find((r) => r.action === 'task.update')!;
    expect(update).toMatchObject({ objectType: 'task', objectId: String(taskId), actor: { kind: 'apiKey', name: 'api-key:alpha-TENANT_ADMIN' } });
    expect(update.actor.address).toMatch(/127\.0\.0\.1/);
    expect(update.before).toMatchObject({ priority: 0 });
    expect(update.after).toMatchObject({ priority: 9 });
    expect(items.map((r) => r.at)).toEqual([...items.map((r) => r.at)].sort((a, b) => b - a));
  });

  it('filters by who, what, object and time, pages with a cursor, and refuses a bad filter naming it', async () => {
    expect((await page(alpha.admin, { actor: 'alpha-admin' })).items.every((r) => r.actor.name === 'alpha-admin')).toBe(true);
    expect((await page(alpha.admin, { action: 'task.create' })).items.map((r) => r.objectId)).toEqual([String(taskId)]);
    expect((await page(alpha.admin, { objectType: 'task', objectId: String(taskId) })).items.map((r) => r.action)).toEqual(['task.update', 'task.create']);
    const created = (await page(alpha.admin, { action: 'task.create' })).items[0].at;
    expect((await page(alpha.admin, { from: String(created + 1) })).items.map((r) => r.action)).not.toContain('task.create');
    const first = await page(alpha.admin, { limit: '1' });
    const second = await page(alpha.admin, { limit: '1', cursor: first.nextCursor! });
    expect(second.items[0].id).not.toBe(first.items[0].id);
    const bad = await t.http().get('/api/audit').query({ objectId: '1' }).set(alpha.admin);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'objectId', reason: 'needs objectType' }]);
    expect((await t.http().get('/api/audit').query({ action: 'DROP TABLE' }).set(alpha.admin)).body.errors[0].field).toBe('action');
  });

  it('never keeps a secret: a new API key is recorded without its key or hash, a webhook without its secret', async () => {
    const key = (await page(alpha.admin, { action: 'api-key.create' })).items[0];
    expect(key.after).toMatchObject({ name: 'ci', prefix: clearKey.slice(0, 10) });
    expect(JSON.stringify(key)).not.toContain(clearKey);
    const hook = (await page(bravo.admin, { action: 'webhook.create' })).items[0];
    expect(hook.after).toMatchObject({ secret: '[redacted]' });
    expect(JSON.stringify(hook)).not.toMatch(/whsec_/);
  });

  it('exports the same records as JSON lines', async () => {
    const res = await t.http().get('/api/audit/export').query({ objectType: 'task' }).set(alpha.admin).buffer(true).parse((r, done) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString('utf8')));
      r.on('end', () => done(null, text));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = (res.body as string).trim().split('\n').map((l) => JSON.parse(l) as Row);
    expect(lines.map((r) => r.action)).toEqual(['task.update', 'task.create']);
  });

  it("keeps a viewer out, and shows the operator every tenant's records and its own", async () => {
    expect((await t.http().get('/api/audit').set(alpha.viewer)).status).toBe(403);
    expect((await t.http().get('/api/operator/audit').set(alpha.admin)).status).toBe(403);
    const all = await page(operator, {}, '/api/operator/audit');
    expect(new Set(all.items.map((r) => r.tenantId))).toEqual(new Set(['alpha', 'bravo', null]));
    expect(all.items.find((r) => r.action === 'engine-group.create')).toMatchObject({ tenantId: null, actor: { name: 'operator' } });
    expect((await page(operator, { tenantId: 'bravo' }, '/api/operator/audit')).items.every((r) => r.tenantId === 'bravo')).toBe(true);
  });

  it('offers no route that edits or deletes a record', async () => {
    const doc = (await t.http().get('/api/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    const auditPaths = Object.entries(doc.paths).filter(([path]) => path.includes('/audit'));
    expect(auditPaths.flatMap(([, ops]) => Object.keys(ops)).every((m) => m === 'get')).toBe(true);
  });
});
