/**
 * Accounts and keys (issue 21 items 3 to 6): API keys owned by the user who made them and dying
 * with its rights, login throttling per account and address that cannot lock a user out from
 * elsewhere, one answer for every failed login, user names per tenant (no answer tells whether
 * a name exists in another tenant), and the operator's ceiling on `minRunsKept`.
 *
 * The test app trusts `X-Forwarded-For`, so a request can come from any client address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyEntity, AuditRecordEntity, UserEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { insertApiKey, insertUser, login, seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('console accounts on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let a: SeededTenant;
  let b: SeededTenant;
  const from = (address: string) => ({ 'X-Forwarded-For': address });
  const attempt = (body: Record<string, unknown>, address = '10.1.0.1') => t.http().post('/api/auth/login').set(from(address)).send(body);

  /** A new user of alpha made by alpha's admin, logged in. */
  async function alphaUser(username: string, role: 'TENANT_ADMIN' | 'TENANT_VIEWER'): Promise<{ id: number; creds: Credentials }> {
    const created = await t.http().post('/api/users').set(a.admin).send({ username, password: `${username}-pass`, role });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.id as number, creds: await login(t, `alpha/${username}`, `${username}-pass`) };
  }

  async function newKey(creds: Credentials, name: string, role: 'TENANT_ADMIN' | 'TENANT_VIEWER'): Promise<{ id: number; key: Credentials }> {
    const res = await t.http().post('/api/api-keys').set(creds).send({ name, role });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.id as number, key: { 'X-API-Key': res.body.key as string } };
  }

  const statusWith = async (key: Credentials) => (await t.http().get('/api/tasks').set(key)).status;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    (t.app.getHttpAdapter().getInstance() as { set(name: string, value: unknown): void }).set('trust proxy', true);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'alpha');
    b = await seedTenant(t, db.dataSource, 'bravo');
  });
  afterAll(() => t?.close());

  describe('API keys owned by users', () => {
    it('records who made a key, shows it in the list, and the key dies (401) when its owner is disabled; enabling the owner again does not revive it', async () => {
      const maker = await alphaUser('key-maker', 'TENANT_ADMIN');
      const { id, key } = await newKey(maker.creds, 'ci', 'TENANT_ADMIN');
      expect(await statusWith(key)).toBe(200);
      const listed = (await t.http().get('/api/api-keys').set(a.admin)).body.find((k: { id: number }) => k.id === id);
      expect(listed).toMatchObject({ ownerUserId: maker.id, ownerUsername: 'key-maker', revokedAt: null });
      const operatorList = (await t.http().get('/api/operator/api-keys').set(operator)).body.find((k: { id: number }) => k.id === id);
      expect(operatorList).toMatchObject({ ownerUserId: maker.id, ownerUsername: 'key-maker' });

      expect((await t.http().patch(`/api/users/${maker.id}`).set(a.admin).send({ disabled: true })).status).toBe(200);
      const refused = await t.http().get('/api/tasks').set(key);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
      expect((await t.http().get('/api/api-keys').set(a.admin)).body.find((k: { id: number }) => k.id === id).revokedAt).toBe(t.clock.now());

      expect((await t.http().patch(`/api/users/${maker.id}`).set(a.admin).send({ disabled: false })).status).toBe(200);
      expect(await statusWith(key)).toBe(401);
    });

    it('a name is one live key of the tenant: a second is refused 409 naming `name`, another tenant may use it, and revoking the first frees it', async () => {
      const { id } = await newKey(a.admin, 'chatops', 'TENANT_ADMIN');
      const again = await t.http().post('/api/api-keys').set(a.admin).send({ name: 'chatops', role: 'TENANT_VIEWER' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ statusCode: 409, code: 'CONFLICT', errors: [{ field: 'name', reason: expect.stringMatching(/live API key of this tenant is named "chatops"/) }] });
      // Two at once: one is made.
      const both = await Promise.all([0, 1].map(() => t.http().post('/api/api-keys').set(a.admin).send({ name: 'deploy-bot', role: 'TENANT_VIEWER' })));
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      await newKey(b.admin, 'chatops', 'TENANT_VIEWER');
      expect((await t.http().delete(`/api/api-keys/${id}`).set(a.admin)).status).toBe(204);
      await newKey(a.admin, 'chatops', 'TENANT_VIEWER');
    });

    it('an owner demoted to viewer loses its admin keys; its viewer keys keep working', async () => {
      const maker = await alphaUser('demoted-maker', 'TENANT_ADMIN');
      const adminKey = await newKey(maker.creds, 'deploy', 'TENANT_ADMIN');
      const viewerKey = await newKey(maker.creds, 'dashboard', 'TENANT_VIEWER');
      expect((await t.http().patch(`/api/users/${maker.id}`).set(a.admin).send({ role: 'TENANT_VIEWER' })).status).toBe(200);
      expect(await statusWith(adminKey.key)).toBe(401);
      expect(await statusWith(viewerKey.key)).toBe(200);
      // The change's record names the keys it revoked.
      const [record] = await db.dataSource.getRepository(AuditRecordEntity).find({ where: { action: 'user.update', objectId: String(maker.id) }, order: { id: 'DESC' }, take: 1 });
      expect(record.after).toMatchObject({ role: 'TENANT_VIEWER', revokedApiKeyIds: [adminKey.id] });
    });

    it("a key acts for its owner: it may not demote or disable its owner, as the owner's session may not; another user it may", async () => {
      const owner = await alphaUser('self-keeper', 'TENANT_ADMIN');
      const { key } = await newKey(owner.creds, 'self-keeper-key', 'TENANT_ADMIN');
      const other = await alphaUser('self-keeper-peer', 'TENANT_ADMIN');
      const patch = (creds: Credentials, id: number, body: Record<string, unknown>) => t.http().patch(`/api/users/${id}`).set(creds).send(body);
      for (const creds of [owner.creds, key]) {
        const demoted = await patch(creds, owner.id, { role: 'TENANT_VIEWER' });
        expect(demoted.status).toBe(400);
        expect(demoted.body.errors).toEqual([{ field: 'role', reason: 'you cannot change your own role' }]);
        const disabled = await patch(creds, owner.id, { disabled: true });
        expect(disabled.status).toBe(400);
        expect(disabled.body.errors).toEqual([{ field: 'disabled', reason: 'you cannot disable yourself' }]);
      }
      expect((await t.http().get('/api/users').set(key)).body.find((u: { id: number }) => u.id === owner.id)).toMatchObject({ role: 'TENANT_ADMIN', disabled: false });
      expect(await statusWith(key)).toBe(200);
      expect((await patch(key, other.id, { role: 'TENANT_VIEWER' })).status).toBe(200);
    });

    it('revoking a key revoked already answers 204 again and records nothing', async () => {
      const { id } = await newKey(a.admin, 'twice', 'TENANT_VIEWER');
      const revokes = () => db.dataSource.getRepository(AuditRecordEntity).count({ where: { action: 'api-key.revoke', objectId: String(id) } });
      expect((await t.http().delete(`/api/api-keys/${id}`).set(a.admin)).status).toBe(204);
      expect((await t.http().delete(`/api/api-keys/${id}`).set(a.admin)).status).toBe(204);
      expect(await revokes()).toBe(1);
    });

    it('an owner deleted by the operator takes its keys with it', async () => {
      const maker = await alphaUser('deleted-maker', 'TENANT_ADMIN');
      const { key } = await newKey(maker.creds, 'nightly', 'TENANT_VIEWER');
      expect((await t.http().delete(`/api/operator/users/${maker.id}`).set(operator)).status).toBe(204);
      expect(await statusWith(key)).toBe(401);
    });

    it('a key made with a key belongs to the same user; a key made before owners were recorded keeps working, is listed without owner, and makes no keys', async () => {
      const maker = await alphaUser('chain-maker', 'TENANT_ADMIN');
      const first = await newKey(maker.creds, 'first', 'TENANT_ADMIN');
      const second = await newKey(first.key, 'second', 'TENANT_VIEWER');
      expect((await db.dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ id: second.id })).ownerUserId).toBe(maker.id);
      expect((await t.http().patch(`/api/users/${maker.id}`).set(a.admin).send({ disabled: true })).status).toBe(200);
      expect(await statusWith(second.key)).toBe(401);

      const legacy = await insertApiKey(db.dataSource, 'alpha', 'TENANT_ADMIN');
      expect(await statusWith(legacy)).toBe(200);
      const unowned = (await t.http().get('/api/api-keys').set(a.admin)).body.filter((k: { ownerUserId: number | null }) => k.ownerUserId === null);
      expect(unowned.length).toBeGreaterThan(0);
      expect(unowned[0]).toMatchObject({ ownerUserId: null, ownerUsername: null });
      const made = await t.http().post('/api/api-keys').set(legacy).send({ name: 'orphan', role: 'TENANT_VIEWER' });
      expect(made.status).toBe(403);
      expect(made.body.message).toContain('log in');
    });
  });

  describe('login throttling', () => {
    it('five wrong passwords for "operator" from one address delay that address only: "operator" logs in from another', async () => {
      for (let i = 0; i < 5; i++) expect((await attempt({ username: 'operator', password: `guess-${i}` }, '10.9.9.9')).status).toBe(401);
      const delayed = await attempt({ username: 'operator', password: 'password-123' }, '10.9.9.9');
      expect(delayed.status).toBe(429);
      expect(Number(delayed.headers['retry-after'])).toBeGreaterThan(0);
      expect((await attempt({ username: 'operator', password: 'password-123' }, '10.7.7.7')).status).toBe(200);
    });

    it('answers every failed login the same: unknown user, unknown tenant, wrong password, disabled account with the right or a wrong password', async () => {
      const disabled = await alphaUser('gone-away', 'TENANT_VIEWER');
      expect((await t.http().patch(`/api/users/${disabled.id}`).set(a.admin).send({ disabled: true })).status).toBe(200);
      const answers = [
        await attempt({ username: 'no-such-user', password: 'whatever-1' }, '10.2.0.1'),
        await attempt({ tenant: 'no-such-tenant', username: 'alpha-admin', password: 'password-123' }, '10.2.0.2'),
        await attempt({ tenant: 'alpha', username: 'alpha-admin', password: 'wrong-password' }, '10.2.0.3'),
        await attempt({ tenant: 'alpha', username: 'gone-away', password: 'gone-away-pass' }, '10.2.0.4'),
        await attempt({ tenant: 'alpha', username: 'gone-away', password: 'wrong-password' }, '10.2.0.5'),
      ];
      for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: answers[0].status, body: answers[0].body });
      expect(answers[0].status).toBe(401);
    });

    it('a wrong currentPassword on POST /api/auth/password is throttled the same way, per account and address', async () => {
      const user = await alphaUser('pw-changer', 'TENANT_ADMIN');
      const change = (currentPassword: string, address: string) =>
        t.http().post('/api/auth/password').set(user.creds).set(from(address)).send({ currentPassword, newPassword: 'a-brand-new-pass' });
      for (let i = 0; i < 5; i++) expect((await change(`guess-${i}`, '10.3.0.1')).status).toBe(400);
      const delayed = await change('pw-changer-pass', '10.3.0.1');
      expect(delayed.status).toBe(429);
      expect(delayed.body).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(delayed.headers['retry-after'])).toBeGreaterThan(0);
      expect((await change('pw-changer-pass', '10.3.0.2')).status).toBe(204);
    });

    it('counts failures per account as the database tells accounts apart: names differing in case are two accounts on SQLite, one on MySQL', async () => {
      const lower = await t.http().post('/api/users').set(a.admin).send({ username: 'case-twin', password: 'case-twin-pass', role: 'TENANT_VIEWER' });
      expect(lower.status).toBe(201);
      const upper = await t.http().post('/api/users').set(a.admin).send({ username: 'Case-Twin', password: 'Case-Twin-pass', role: 'TENANT_VIEWER' });
      const attempt = (username: string, password: string) => t.http().post('/api/auth/login').set(from('10.4.0.1')).send({ tenant: 'alpha', username, password });
      for (let i = 0; i < 5; i++) expect((await attempt('case-twin', `guess-${i}`)).status).toBe(401);
      if (kind === 'sqlite') {
        // Two accounts: the other's right password is not throttled by this one's failures.
        expect(upper.status).toBe(201);
        expect((await attempt('Case-Twin', 'Case-Twin-pass')).status).toBe(200);
      } else {
        // One account (the collation matches either spelling): the name is taken, and either spelling is throttled.
        expect(upper.status).toBe(409);
        expect((await attempt('Case-Twin', 'case-twin-pass')).status).toBe(429);
      }
    });

    it('counts every spelling the database matches to an account as that account: trailing spaces, accents, full-width letters on MySQL', async () => {
      expect((await t.http().post('/api/users').set(a.admin).send({ username: 'look-twin', password: 'look-twin-pass', role: 'TENANT_VIEWER' })).status).toBe(201);
      const attempt = (username: string, password: string) => t.http().post('/api/auth/login').set(from('10.4.0.2')).send({ tenant: 'alpha', username, password });
      const spellings = ['look-twin  ', 'LÓOK-TWIN', 'ｌｏｏｋ－ｔｗｉｎ', 'look-tw\u200bin', 'Look-Twin '];
      if (kind === 'mysql') {
        // Each spelling is the account (utf8mb4_unicode_ci): it logs in.
        for (const spelling of spellings) expect((await attempt(spelling, 'look-twin-pass')).status, spelling).toBe(200);
      }
      for (const spelling of spellings) expect((await attempt(spelling, 'a-wrong-guess')).status, spelling).toBe(401);
      // MySQL: five wrong passwords of one account, whatever they were typed as. SQLite: five unknown names, none of them look-twin.
      expect((await attempt('look-twin', 'look-twin-pass')).status).toBe(kind === 'mysql' ? 429 : 200);
    });
  });

  describe('user names per tenant', () => {
    it("a tenant admin's POST /api/users answers the same whether the name exists in another tenant or not", async () => {
      const create = (username: string) => t.http().post('/api/users').set(b.admin).send({ username, password: 'same-password', role: 'TENANT_VIEWER' });
      const shape = (res: { status: number; body: Record<string, unknown> }) => ({ status: res.status, keys: Object.keys(res.body).sort(), role: res.body.role, tenantId: res.body.tenantId });
      const taken = [await create('operator'), await create('alpha-admin')];
      const free = await create('never-seen-anywhere');
      expect(free.status).toBe(201);
      for (const res of taken) expect(shape(res)).toEqual(shape(free));
      // The same name twice in the tenant: a conflict it can see in its own user list anyway.
      expect((await create('never-seen-anywhere')).status).toBe(409);
    });

    it('a login names the tenant: the same name in two tenants is two accounts, and without a tenant it is an operator', async () => {
      // 'twin-name' made here in both tenants, so the test needs nothing from the one above.
      expect((await t.http().post('/api/users').set(a.admin).send({ username: 'twin-name', password: 'alpha-twin-pass', role: 'TENANT_ADMIN' })).status).toBe(201);
      expect((await t.http().post('/api/users').set(b.admin).send({ username: 'twin-name', password: 'bravo-twin-pass', role: 'TENANT_VIEWER' })).status).toBe(201);
      const bravoTwin = await attempt({ tenant: 'bravo', username: 'twin-name', password: 'bravo-twin-pass' }, '10.4.0.1');
      expect(bravoTwin.status).toBe(200);
      expect(bravoTwin.body.user).toMatchObject({ username: 'twin-name', tenantId: 'bravo', role: 'TENANT_VIEWER' });
      const alphaTwin = await attempt({ tenant: 'alpha', username: 'twin-name', password: 'alpha-twin-pass' }, '10.4.0.1');
      expect(alphaTwin.body.user).toMatchObject({ username: 'twin-name', tenantId: 'alpha', role: 'TENANT_ADMIN' });
      expect((await attempt({ tenant: 'alpha', username: 'twin-name', password: 'bravo-twin-pass' }, '10.4.0.2')).status).toBe(401);
      const op = await attempt({ username: 'operator', password: 'password-123' }, '10.4.0.1');
      expect(op.body.user).toMatchObject({ role: 'OPERATOR', tenantId: null });
      expect((await attempt({ username: 'alpha-admin', password: 'password-123' }, '10.4.0.1')).status).toBe(401);
    });

    it('two operators of one name are refused by the database itself', async () => {
      await insertUser(db.dataSource, 'twin-operator', 'OPERATOR', null);
      await expect(insertUser(db.dataSource, 'twin-operator', 'OPERATOR', null)).rejects.toThrow();
      expect(await db.dataSource.getRepository(UserEntity).countBy({ username: 'twin-operator' })).toBe(1);
    });
  });

  describe('retention', () => {
    it("refuses a minRunsKept above the operator's ceiling, naming the field and the ceiling", async () => {
      const res = await t.http().put('/api/retention').set(a.admin).send({ minRunsKept: 100_000 });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'minRunsKept', reason: "must be an integer from 0 to 100, the cluster's ceiling (BATON_MAX_RUNS_KEPT), or null" }]);
      const task = await t.http().post('/api/tasks').set(a.admin).send({ name: 'kept', executorApp: 'billing', handler: 'h', trigger: { kind: 'MANUAL' } });
      expect(task.status, JSON.stringify(task.body)).toBe(201);
      const override = await t.http().put(`/api/retention/tasks/${task.body.id}`).set(a.admin).send({ minRunsKept: 101 });
      expect(override.body.errors).toEqual([{ field: 'minRunsKept', reason: expect.stringContaining('from 0 to 100') }]);
      expect((await t.http().get('/api/retention').set(a.admin)).body.ceiling).toMatchObject({ minRunsKept: 100 });
    });
  });
});
