/**
 * The executor secret in the console: rotation with an overlap window (tenant admin for its own
 * tenant, operator for any), the executors' secret status, and the "Connect an executor" facts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineNodeEntity, ExecutorEntity, TenantEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { insertExecutor, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('console executor secret on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let a: SeededTenant;
  let b: SeededTenant;
  const tenantRow = (id: string) => db.dataSource.getRepository(TenantEntity).findOneByOrFail({ id });

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'alpha');
    b = await seedTenant(t, db.dataSource, 'bravo');
  });
  afterAll(() => t?.close());

  it('a tenant admin rotates: the new secret once, the previous one kept for the overlap window (default 24 h); B is untouched', async () => {
    const before = await tenantRow(a.id);
    const bBefore = await tenantRow(b.id);
    const res = await t.http().post('/api/executors/secret/rotate').set(a.admin).send({});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ tenantId: a.id, executorSecret: expect.stringMatching(/^[0-9a-f]{64}$/), secretVersion: before.executorSecretVersion + 1, previousSecretExpiresAt: t.clock.now() + 86_400_000 });
    expect(await tenantRow(a.id)).toMatchObject({
      executorSecret: res.body.executorSecret,
      executorSecretVersion: before.executorSecretVersion + 1,
      previousExecutorSecret: before.executorSecret,
      previousSecretExpiresAt: t.clock.now() + 86_400_000,
    });
    expect(await tenantRow(b.id)).toEqual(bBefore);
  });

  it('overlapSeconds 0 revokes the previous secret at once; out-of-range values are refused naming the field, changing nothing', async () => {
    const res = await t.http().post('/api/executors/secret/rotate').set(a.admin).send({ overlapSeconds: 0 });
    expect(res.status).toBe(200);
    expect(res.body.previousSecretExpiresAt).toBeNull();
    expect(await tenantRow(a.id)).toMatchObject({ executorSecret: res.body.executorSecret, previousExecutorSecret: null, previousSecretExpiresAt: null });
    const unchanged = await tenantRow(a.id);
    for (const overlapSeconds of [-1, 604_801, 1.5, 'soon']) {
      const bad = await t.http().post('/api/executors/secret/rotate').set(a.admin).send({ overlapSeconds });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['overlapSeconds']);
    }
    expect(await tenantRow(a.id)).toEqual(unchanged);
  });

  it('a viewer may not rotate; the operator rotates any tenant; an unknown tenant is 404', async () => {
    expect((await t.http().post('/api/executors/secret/rotate').set(a.viewer).send({})).status).toBe(403);
    const before = await tenantRow(b.id);
    const res = await t.http().post(`/api/operator/tenants/${b.id}/executor-secret/rotate`).set(operator).send({ overlapSeconds: 3600 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tenantId: b.id, secretVersion: before.executorSecretVersion + 1, previousSecretExpiresAt: t.clock.now() + 3_600_000 });
    expect((await t.http().post('/api/operator/tenants/nobody/executor-secret/rotate').set(operator).send({})).status).toBe(404);
  });

  it("lists each executor's secret status: CURRENT, PREVIOUS during the window, OUTDATED after it", async () => {
    const rotated = await t.http().post('/api/executors/secret/rotate').set(a.admin).send({ overlapSeconds: 60 });
    const version = rotated.body.secretVersion as number;
    const onNew = await insertExecutor(db.dataSource, a.id, 'billing');
    const onOld = await insertExecutor(db.dataSource, a.id, 'billing');
    const repo = db.dataSource.getRepository(ExecutorEntity);
    await repo.update({ id: onNew.id }, { secretVersion: version });
    await repo.update({ id: onOld.id }, { secretVersion: version - 1 });
    const statuses = async () => Object.fromEntries(((await t.http().get('/api/executors').set(a.viewer)).body as Array<{ id: number; secret: string }>).map((e) => [e.id, e.secret]));
    expect(await statuses()).toMatchObject({ [onNew.id]: 'CURRENT', [onOld.id]: 'PREVIOUS' });
    t.clock.advance(60_000);
    expect(await statuses()).toMatchObject({ [onNew.id]: 'CURRENT', [onOld.id]: 'OUTDATED' });
    t.clock.set(T0);
  });

  it('the connection facts: tenant, the UP engines of its group, its app names, no secret', async () => {
    await db.dataSource.getRepository(EngineNodeEntity).insert([
      { id: 'e1', groups: 'default,batch', host: 'h', pid: 1, url: 'http://10.0.0.1:8090', slots: 8, startedAt: T0, heartbeatAt: T0, state: 'UP' },
      { id: 'e2', groups: 'batch', host: 'h', pid: 2, url: 'http://10.0.0.2:8090', slots: 8, startedAt: T0, heartbeatAt: T0, state: 'UP' },
      { id: 'e3', groups: 'default', host: 'h', pid: 3, url: 'http://10.0.0.3:8090', slots: 8, startedAt: T0, heartbeatAt: T0, state: 'DOWN' },
    ]);
    await insertExecutor(db.dataSource, a.id, 'billing');
    const res = await t.http().get('/api/executors/connection').set(a.viewer);
    expect(res.status).toBe(200);
    const tenant = await tenantRow(a.id);
    expect(res.body).toMatchObject({ tenantId: a.id, engineGroup: tenant.engineGroup, engineUrls: ['http://10.0.0.1:8090'], apps: expect.arrayContaining(['billing']), secretVersion: tenant.executorSecretVersion });
    expect(JSON.stringify(res.body)).not.toContain(tenant.executorSecret);
  });
});
