/**
 * What the API fuzzer (api-fuzz.e2e-spec.ts) found, each as a fixed case, so it stays fixed
 * whatever seed the fuzzer runs with:
 * - a null for an optional field whose absence means "unchanged" reached the database as a NOT
 *   NULL violation (500): PATCH tenant name/engineGroup/ratePerSec/burst/claimShare, PATCH user
 *   role/disabled, a new API key's role. Now a 400 naming the field, nothing written; its reason
 *   says the field must not be null and what leaving it out means, not "is required" (a null
 *   secret of an inbound webhook was told that), and a null executor-secret overlap, taken as 0
 *   (the previous secret revoked at once), is refused the same way;
 * - `GET /api/ui/task-summaries?ids=1&ids=2` answered every task (the repeated list was dropped);
 * - the OpenAPI document disagreed with the API: PATCH /calendars/{id} was documented with
 *   PUT's required fields, and handler params as objects only where any JSON value is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../support/databases';
import { rowCounts, seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from '../console-test-kit';

describe.each(TEST_DATABASES)('fuzzer findings on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let a: SeededTenant;
  let viewerId: number;
  let hookId: number;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'acme');
    viewerId = (await db.dataSource.getRepository(UserEntity).findOneByOrFail({ username: 'acme-viewer' })).id;
    const hook = await t.http().post('/api/inbound-webhooks').set(a.admin).send({ name: 'github', event: 'repo.push', scheme: 'GITHUB' });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    hookId = hook.body.id;
  });

  afterAll(() => t?.close());

  const nulls: Array<[string, 'operator' | 'admin', 'POST' | 'PATCH', () => string, Record<string, unknown>, string]> = [
    ['tenant name', 'operator', 'PATCH', () => '/api/operator/tenants/acme', { name: null }, 'name'],
    ['tenant engine group', 'operator', 'PATCH', () => '/api/operator/tenants/acme', { engineGroup: null }, 'engineGroup'],
    ['tenant rate', 'operator', 'PATCH', () => '/api/operator/tenants/acme', { ratePerSec: null }, 'ratePerSec'],
    ['tenant burst', 'operator', 'PATCH', () => '/api/operator/tenants/acme', { burst: null }, 'burst'],
    ['tenant claim share', 'operator', 'PATCH', () => '/api/operator/tenants/acme', { claimShare: null }, 'claimShare'],
    ['user disabled (tenant admin)', 'admin', 'PATCH', () => `/api/users/${viewerId}`, { disabled: null }, 'disabled'],
    ['user role (tenant admin)', 'admin', 'PATCH', () => `/api/users/${viewerId}`, { role: null }, 'role'],
    ['user disabled (operator)', 'operator', 'PATCH', () => `/api/operator/users/${viewerId}`, { disabled: null }, 'disabled'],
    ['API key role', 'admin', 'POST', () => '/api/api-keys', { name: 'k', role: null }, 'role'],
    ['API key role (operator)', 'operator', 'POST', () => '/api/operator/api-keys', { tenantId: 'acme', name: 'k', role: null }, 'role'],
    // Left out, these take a default; a null was answered "is required" (the secret), or taken as
    // 0 (the overlap: the previous executor secret revoked at once).
    ['inbound webhook secret', 'admin', 'POST', () => '/api/inbound-webhooks', { name: 'hook', event: 'repo.push', scheme: 'GITHUB', secret: null }, 'secret'],
    ['inbound webhook secret (rotation)', 'admin', 'POST', () => `/api/inbound-webhooks/${hookId}/secret`, { secret: null }, 'secret'],
    ['executor secret overlap', 'admin', 'POST', () => '/api/executors/secret/rotate', { overlapSeconds: null }, 'overlapSeconds'],
    ['executor secret overlap (operator)', 'operator', 'POST', () => '/api/operator/tenants/acme/executor-secret/rotate', { overlapSeconds: null }, 'overlapSeconds'],
  ];

  it.each(nulls)('a null %s is a 400 naming it and saying what to send instead, not a 500', async (_name, as, method, url, body, field) => {
    const before = await rowCounts(db.dataSource);
    const tenantBefore = await db.dataSource.query('SELECT * FROM tenants ORDER BY id');
    const hooksBefore = await db.dataSource.query('SELECT * FROM inbound_webhooks ORDER BY id');
    const req = method === 'POST' ? t.http().post(url()) : t.http().patch(url());
    const res = await req.set(as === 'operator' ? operator : a.admin).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    // Not "is required": the field may be left out, and the answer says what that means.
    expect(res.body.errors).toEqual([{ field, reason: expect.stringMatching(/^must not be null \(leave the field out (to keep it as it is|for .+)\); must be /) }]);
    expect(await db.dataSource.query('SELECT * FROM inbound_webhooks ORDER BY id')).toEqual(hooksBefore);
    expect(await rowCounts(db.dataSource)).toEqual(before);
    expect(await db.dataSource.query('SELECT * FROM tenants ORDER BY id')).toEqual(tenantBefore);
  });

  it('refuses an id list given twice (?ids=1&ids=2), which was read as no list: every task', async () => {
    const res = await t.http().get('/api/ui/task-summaries?ids=1&ids=2').set(a.admin);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'ids' })]);
  });

  it('documents PATCH /calendars/{id} as partial, and takes it so', async () => {
    const doc = (await t.http().get('/api/docs-json')).body;
    const ref: string = doc.paths['/api/calendars/{id}'].patch.requestBody.content['application/json'].schema.$ref;
    expect(doc.components.schemas[ref.split('/').pop()!].required ?? []).toEqual([]);
    const cal = await t.http().post('/api/calendars').set(a.admin).send({ name: 'holidays', timeZone: 'UTC', dates: ['2026-12-25'] });
    const patched = await t.http().patch(`/api/calendars/${cal.body.id}`).set(a.admin).send({ timeZone: 'Europe/Berlin' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'holidays', timeZone: 'Europe/Berlin', dates: ['2026-12-25'] });
  });

  it('documents handler params as any JSON value, as they are taken', async () => {
    const doc = (await t.http().get('/api/docs-json')).body;
    for (const schema of ['TaskBodyDto', 'PatchTaskDto', 'TriggerRunDto']) {
      const params = doc.components.schemas[schema].properties.params;
      expect(params.type, schema).toBeUndefined();
      expect(params.oneOf.map((s: { type: string }) => s.type)).toEqual(['object', 'array', 'string', 'number', 'boolean']);
    }
  });
});
