/**
 * Users: a tenant created with its first admin in one step, user management by the operator
 * (every tenant) and by a tenant admin (its own tenant only), disabling, password resets and
 * changing one's own password.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineGroupEntity, SessionEntity, UserEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { login, rowCounts, seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

const fieldsOf = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field);
/** The one answer to an API key changing any password. */
const API_KEY_REFUSED = { statusCode: 403, code: 'FORBIDDEN', message: expect.stringContaining('An API key cannot change a password') };

describe.each(TEST_DATABASES)('console users on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let a: SeededTenant;
  let b: SeededTenant;
  const userId = async (username: string) => (await db.dataSource.getRepository(UserEntity).findOneByOrFail({ username })).id;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'alpha');
    b = await seedTenant(t, db.dataSource, 'bravo');
  });
  afterAll(() => t?.close());

  describe('a tenant with its first admin', () => {
    it('creates both in one step; the answer has the admin (no password) and the executor secret; the admin logs in', async () => {
      const res = await t
        .http()
        .post('/api/operator/tenants')
        .set(operator)
        .send({ id: 'charlie', name: 'Charlie', admin: { username: 'charlie-root', password: 'charlie-pass-1' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ id: 'charlie', engineGroup: 'default', admin: { username: 'charlie-root', role: 'TENANT_ADMIN', tenantId: 'charlie', disabled: false } });
      expect(res.body.executorSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(res.body)).not.toContain('charlie-pass-1');
      expect(JSON.stringify(res.body)).not.toContain('passwordHash');
      const admin = await login(t, 'charlie/charlie-root', 'charlie-pass-1');
      expect((await t.http().get('/api/auth/me').set(admin)).body).toMatchObject({ role: 'TENANT_ADMIN', tenantId: 'charlie' });
      expect((await t.http().get('/api/users').set(admin)).body.map((u: { username: string }) => u.username)).toEqual(['charlie-root']);
    });

    it('keeps the old shape working: no admin, an explicit engine group', async () => {
      const res = await t.http().post('/api/operator/tenants').set(operator).send({ id: 'delta', name: 'Delta', engineGroup: 'default' });
      expect(res.status).toBe(201);
      expect(res.body.admin).toBeUndefined();
      expect(res.body.executorSecret).toBeDefined();
    });

    it('stores nothing when the admin is bad, and names the field', async () => {
      const before = await rowCounts(db.dataSource);
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ username: 'echo-root', password: 'short' }, 400, 'admin.password'],
        [{ username: 'has space', password: 'long-enough-1' }, 400, 'admin.username'],
        [{ password: 'long-enough-1' }, 400, 'admin.username'],
        [{ username: 'echo-root', password: 'long-enough-1', role: 'OPERATOR' }, 400, 'admin.role'],
      ];
      for (const [admin, status, field] of cases) {
        const res = await t.http().post('/api/operator/tenants').set(operator).send({ id: 'echo', name: 'Echo', admin });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        expect(fieldsOf(res.body)).toContain(field);
      }
      expect(fieldsOf((await t.http().post('/api/operator/tenants').set(operator).send({ id: 'echo', name: 'Echo', admin: 'root' })).body)).toContain('admin');
      expect(await rowCounts(db.dataSource)).toEqual(before);
    });

    it('says how an engine group comes to exist when it does not (a fresh cluster before its engines start)', async () => {
      const res = await t.http().post('/api/operator/tenants').set(operator).send({ id: 'foxtrot', name: 'F', engineGroup: 'nowhere' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'engineGroup', reason: expect.stringContaining('creates it when it starts') }]);
      expect(await db.dataSource.getRepository(EngineGroupEntity).existsBy({ name: 'nowhere' })).toBe(false);
    });
  });

  describe('tenant admin', () => {
    it("manages its own tenant's users: create, role, disable/enable, reset password", async () => {
      const created = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-carol', password: 'carol-pass-1', role: 'TENANT_VIEWER' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ username: 'alpha-carol', role: 'TENANT_VIEWER', tenantId: 'alpha', disabled: false });
      const id = created.body.id as number;
      const carol = await login(t, 'alpha/alpha-carol', 'carol-pass-1');
      expect((await t.http().post('/api/tasks').set(carol).send({})).status).toBe(403);

      const promoted = await t.http().patch(`/api/users/${id}`).set(a.admin).send({ role: 'TENANT_ADMIN' });
      expect(promoted.body).toMatchObject({ role: 'TENANT_ADMIN' });
      // The role applies to the existing session at once.
      expect((await t.http().get('/api/users').set(carol)).status).toBe(200);

      const disabled = await t.http().patch(`/api/users/${id}`).set(a.admin).send({ disabled: true });
      expect(disabled.body).toMatchObject({ disabled: true });
      expect((await t.http().get('/api/auth/me').set(carol)).status).toBe(401);
      const refused = await t.http().post('/api/auth/login').send({ tenant: 'alpha', username: 'alpha-carol', password: 'carol-pass-1' });
      expect(refused.status).toBe(401);
      expect(refused.body.message).toBe('Invalid tenant, username or password');

      expect((await t.http().patch(`/api/users/${id}`).set(a.admin).send({ disabled: false })).body).toMatchObject({ disabled: false });
      const again = await login(t, 'alpha/alpha-carol', 'carol-pass-1');
      expect((await t.http().post(`/api/users/${id}/password`).set(a.admin).send({ password: 'carol-pass-2' })).status).toBe(204);
      expect((await t.http().get('/api/auth/me').set(again)).status).toBe(401); // reset ends the sessions
      expect((await t.http().post('/api/auth/login').send({ tenant: 'alpha', username: 'alpha-carol', password: 'carol-pass-1' })).status).toBe(401);
      await login(t, 'alpha/alpha-carol', 'carol-pass-2');
    });

    it("cannot see or touch another tenant's users (404, nothing changes) nor create an OPERATOR", async () => {
      const bAdminId = await userId('bravo-admin');
      const before = await db.dataSource.getRepository(UserEntity).find({ where: { tenantId: 'bravo' }, order: { id: 'ASC' } });
      const list = (await t.http().get('/api/users').set(a.admin)).body as Array<{ tenantId: string; username: string }>;
      expect(list.length).toBeGreaterThan(0);
      expect(list.every((u) => u.tenantId === 'alpha')).toBe(true);
      for (const creds of [a.admin, a.adminKey]) {
        expect((await t.http().patch(`/api/users/${bAdminId}`).set(creds).send({ disabled: true })).status).toBe(404);
        expect((await t.http().patch(`/api/users/${bAdminId}`).set(creds).send({ role: 'TENANT_VIEWER' })).status).toBe(404);
        // A key sets no password at all: refused before any user is looked up, so a 403 whoever the user is.
        expect((await t.http().post(`/api/users/${bAdminId}/password`).set(creds).send({ password: 'hijacked-1' })).status).toBe(creds === a.adminKey ? 403 : 404);
      }
      const operatorId = await userId('operator');
      expect((await t.http().patch(`/api/users/${operatorId}`).set(a.admin).send({ disabled: true })).status).toBe(404);
      const op = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-op', password: 'long-enough-1', role: 'OPERATOR' });
      expect(op.status).toBe(400);
      expect(fieldsOf(op.body)).toEqual(['role']);
      const other = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-x', password: 'long-enough-1', role: 'TENANT_VIEWER', tenantId: 'bravo' });
      expect(other.status).toBe(400);
      expect(fieldsOf(other.body)).toEqual(['tenantId']);
      expect(await db.dataSource.getRepository(UserEntity).find({ where: { tenantId: 'bravo' }, order: { id: 'ASC' } })).toEqual(before);
      expect(await db.dataSource.getRepository(UserEntity).existsBy({ username: 'alpha-op' })).toBe(false);
      expect((await t.http().get('/api/auth/me').set(b.admin)).status).toBe(200);
    });

    it('cannot demote or disable itself; bad input names the field', async () => {
      const self = await userId('alpha-admin');
      const demote = await t.http().patch(`/api/users/${self}`).set(a.admin).send({ role: 'TENANT_VIEWER' });
      expect(demote.status).toBe(400);
      expect(fieldsOf(demote.body)).toEqual(['role']);
      const disable = await t.http().patch(`/api/users/${self}`).set(a.admin).send({ disabled: true });
      expect(fieldsOf(disable.body)).toEqual(['disabled']);
      const bad = await t.http().patch(`/api/users/${self}`).set(a.admin).send({ disabled: 'yes', role: 'BOSS' });
      expect(bad.status).toBe(400);
      expect(fieldsOf(bad.body).sort()).toEqual(['disabled', 'role']);
      const create = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-admin', password: 'long-enough-1', role: 'TENANT_VIEWER' });
      expect(create.status).toBe(409);
      expect(fieldsOf(create.body)).toEqual(['username']);
      const short = await t.http().post('/api/users/1/password').set(a.admin).send({ password: 'x' });
      expect(fieldsOf(short.body)).toEqual(['password']);
      expect((await t.http().get('/api/auth/me').set(a.admin)).body).toMatchObject({ role: 'TENANT_ADMIN' });
    });

    it('is the only tenant role that manages users: a viewer gets 403', async () => {
      for (const creds of [a.viewer, a.viewerKey]) {
        expect((await t.http().get('/api/users').set(creds)).status).toBe(403);
        expect((await t.http().post('/api/users').set(creds).send({ username: 'v-made', password: 'long-enough-1', role: 'TENANT_ADMIN' })).status).toBe(403);
        expect((await t.http().patch(`/api/users/${await userId('alpha-viewer')}`).set(creds).send({ role: 'TENANT_ADMIN' })).status).toBe(403);
      }
      expect((await t.http().get('/api/users').set(operator)).status).toBe(403); // operators use /api/operator/users
    });
  });

  describe('operator', () => {
    it('lists every tenant\'s users or one tenant\'s, changes roles, disables and resets anyone but keeps OPERATOR a role of its own', async () => {
      const all = (await t.http().get('/api/operator/users').set(operator)).body as Array<{ tenantId: string | null }>;
      // Every tenant's users: the operators', alpha's and bravo's (and those of tenants other tests made).
      expect([...new Set(all.map((u) => u.tenantId))]).toEqual(expect.arrayContaining([null, 'alpha', 'bravo']));
      const bravo = (await t.http().get('/api/operator/users?tenantId=bravo').set(operator)).body as Array<{ tenantId: string }>;
      expect(bravo.map((u) => u.tenantId)).toEqual(['bravo', 'bravo']);

      const viewerId = await userId('bravo-viewer');
      expect((await t.http().patch(`/api/operator/users/${viewerId}`).set(operator).send({ role: 'TENANT_ADMIN' })).body).toMatchObject({ role: 'TENANT_ADMIN' });
      expect((await t.http().patch(`/api/operator/users/${viewerId}`).set(operator).send({ role: 'OPERATOR' })).status).toBe(400);
      expect((await t.http().patch(`/api/operator/users/${viewerId}`).set(operator).send({ disabled: true })).body).toMatchObject({ disabled: true });
      expect((await t.http().get('/api/auth/me').set(b.viewer)).status).toBe(401);
      expect((await t.http().post(`/api/operator/users/${viewerId}/password`).set(operator).send({ password: 'reset-by-op-1' })).status).toBe(204);

      const second = await t.http().post('/api/operator/users').set(operator).send({ username: 'operator-2', password: 'long-enough-1', role: 'OPERATOR' });
      const demote = await t.http().patch(`/api/operator/users/${second.body.id}`).set(operator).send({ role: 'TENANT_ADMIN' });
      expect(demote.status).toBe(400);
      expect(fieldsOf(demote.body)).toEqual(['role']);
      const self = await userId('operator');
      expect(fieldsOf((await t.http().patch(`/api/operator/users/${self}`).set(operator).send({ disabled: true })).body)).toEqual(['disabled']);
      expect((await t.http().patch('/api/operator/users/999999').set(operator).send({ disabled: true })).status).toBe(404);
    });
  });

  describe('changing one\'s own password', () => {
    // A user of its own: ending its other sessions must not end the seeded admin's, which other tests use.
    let creds: Credentials;
    beforeAll(async () => {
      const made = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-pw', password: 'password-123', role: 'TENANT_ADMIN' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    });
    beforeEach(async () => {
      creds = await login(t, 'alpha/alpha-pw');
    });

    it('refuses a wrong current password and a bad new one, naming the field; changes nothing', async () => {
      const wrong = await t.http().post('/api/auth/password').set(creds).send({ currentPassword: 'not-it', newPassword: 'new-password-1' });
      expect(wrong.status).toBe(400);
      expect(fieldsOf(wrong.body)).toEqual(['currentPassword']);
      const short = await t.http().post('/api/auth/password').set(creds).send({ currentPassword: 'password-123', newPassword: 'short' });
      expect(fieldsOf(short.body)).toEqual(['newPassword']);
      const missing = await t.http().post('/api/auth/password').set(creds).send({ newPassword: 'new-password-1' });
      expect(fieldsOf(missing.body)).toEqual(['currentPassword']);
      await login(t, 'alpha/alpha-pw', 'password-123');
    });

    it('changes it, keeps the calling session and ends the other sessions of that user', async () => {
      const other = await login(t, 'alpha/alpha-pw');
      const bOther = await login(t, 'bravo/bravo-admin');
      const res = await t.http().post('/api/auth/password').set(creds).send({ currentPassword: 'password-123', newPassword: 'alpha-new-pass' });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect((await t.http().get('/api/auth/me').set(creds)).status).toBe(200);
      expect((await t.http().get('/api/auth/me').set(other)).status).toBe(401);
      expect((await t.http().get('/api/auth/me').set(bOther)).status).toBe(200);
      expect((await t.http().post('/api/auth/login').send({ tenant: 'alpha', username: 'alpha-pw', password: 'password-123' })).status).toBe(401);
      await login(t, 'alpha/alpha-pw', 'alpha-new-pass');
      expect(await db.dataSource.getRepository(SessionEntity).countBy({ userId: await userId('alpha-pw') })).toBeGreaterThan(0);
      // Back, for the other tests.
      await t.http().post('/api/auth/password').set(creds).send({ currentPassword: 'alpha-new-pass', newPassword: 'password-123' });
    });

    it('is refused to an API key, even one sending its owner\'s current password: a person changes a password', async () => {
      const made = await t.http().post('/api/api-keys').set(creds).send({ name: 'alpha-pw-key', role: 'TENANT_ADMIN' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const res = await t.http().post('/api/auth/password').set({ 'X-Api-Key': made.body.key }).send({ currentPassword: 'password-123', newPassword: 'new-password-1' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject(API_KEY_REFUSED);
      expect((await t.http().get('/api/auth/me').set(creds)).status).toBe(200);
      await login(t, 'alpha/alpha-pw', 'password-123');
    });
  });

  describe("setting one's own password on a user management route", () => {
    // An admin of its own (and a key it owns, which may set no password): ending its sessions must not end the seeded ones.
    let selfId: number;
    let key: Credentials;
    beforeAll(async () => {
      const made = await t.http().post('/api/users').set(a.admin).send({ username: 'alpha-self', password: 'password-123', role: 'TENANT_ADMIN' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      selfId = made.body.id;
      const creds = await login(t, 'alpha/alpha-self');
      const madeKey = await t.http().post('/api/api-keys').set(creds).send({ name: 'alpha-self-key', role: 'TENANT_ADMIN' });
      expect(madeKey.status, JSON.stringify(madeKey.body)).toBe(201);
      key = { 'X-Api-Key': madeKey.body.key };
    });

    it('needs the current password from a session of the user; names the field; changes nothing', async () => {
      const creds = await login(t, 'alpha/alpha-self');
      const missing = await t.http().post(`/api/users/${selfId}/password`).set(creds).send({ password: 'taken-over-1' });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([{ field: 'currentPassword', reason: 'is required to change your own password' }]);
      const wrong = await t.http().post(`/api/users/${selfId}/password`).set(creds).send({ password: 'taken-over-1', currentPassword: 'not-it' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors).toEqual([{ field: 'currentPassword', reason: 'is not your current password' }]);
      expect((await t.http().get('/api/auth/me').set(creds)).status).toBe(200);
      await login(t, 'alpha/alpha-self', 'password-123');
    });

    it("refuses a key its owner's password, even with the current one, and another user's: 403, nothing changes", async () => {
      const creds = await login(t, 'alpha/alpha-self');
      const otherId = await userId('alpha-viewer');
      const viewer = await login(t, 'alpha/alpha-viewer');
      const cases: Array<[string, Credentials, number, Record<string, unknown>]> = [
        ["its owner's, with the current password", key, selfId, { password: 'taken-over-1', currentPassword: 'password-123' }],
        ["its owner's, without", key, selfId, { password: 'taken-over-1' }],
        ["another user's", key, otherId, { password: 'taken-over-1' }],
        ["another user's, by the seeded admin key", a.adminKey, otherId, { password: 'taken-over-1' }],
      ];
      for (const [name, as, id, body] of cases) {
        const res = await t.http().post(`/api/users/${id}/password`).set(as).send(body);
        expect(res.status, name).toBe(403);
        expect(res.body, name).toMatchObject(API_KEY_REFUSED);
      }
      expect((await t.http().get('/api/auth/me').set(creds)).status).toBe(200);
      expect((await t.http().get('/api/auth/me').set(viewer)).status).toBe(200);
      await login(t, 'alpha/alpha-self', 'password-123');
      await login(t, 'alpha/alpha-viewer', 'password-123');
    });

    it('sets it with the current one: the calling session stays, the others end', async () => {
      const creds = await login(t, 'alpha/alpha-self');
      const other = await login(t, 'alpha/alpha-self');
      const res = await t.http().post(`/api/users/${selfId}/password`).set(creds).send({ password: 'alpha-self-2', currentPassword: 'password-123' });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect((await t.http().get('/api/auth/me').set(creds)).status).toBe(200);
      expect((await t.http().get('/api/auth/me').set(other)).status).toBe(401);
      await login(t, 'alpha/alpha-self', 'alpha-self-2');
      const back = await t.http().post(`/api/users/${selfId}/password`).set(creds).send({ password: 'password-123', currentPassword: 'alpha-self-2' });
      expect(back.status, JSON.stringify(back.body)).toBe(204);
      await login(t, 'alpha/alpha-self', 'password-123');
    });

    it("is not asked of an admin setting another user's password", async () => {
      const res = await t.http().post(`/api/users/${selfId}/password`).set(a.admin).send({ password: 'password-123' });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
    });

    it('needs it from an operator setting its own, too', async () => {
      const self = await userId('operator');
      const missing = await t.http().post(`/api/operator/users/${self}/password`).set(operator).send({ password: 'taken-over-1' });
      expect(missing.status).toBe(400);
      expect(fieldsOf(missing.body)).toEqual(['currentPassword']);
      await login(t, 'operator', 'password-123');
    });
  });

  describe('a password over 72 bytes (bcrypt would ignore the rest)', () => {
    // 73 bytes in 37 characters: the limit is on UTF-8 bytes, not characters.
    const tooLong = 'é'.repeat(36) + 'x';
    const fits = 'é'.repeat(36);

    it('is refused with 400 naming the field on every route that sets one; nothing is stored or changed', async () => {
      expect(Buffer.byteLength(tooLong)).toBe(73);
      const adminId = await userId('alpha-admin');
      const creds = await login(t, 'alpha/alpha-admin');
      const before = await rowCounts(db.dataSource);
      const cases: Array<[string, string, Credentials, Record<string, unknown>, string]> = [
        ['operator creates a user', '/api/operator/users', operator, { username: 'long-1', password: tooLong, role: 'OPERATOR' }, 'password'],
        ['tenant admin creates a user', '/api/users', creds, { username: 'long-2', password: tooLong, role: 'TENANT_VIEWER' }, 'password'],
        ['tenant with its first admin', '/api/operator/tenants', operator, { id: 'longco', name: 'Long', admin: { username: 'long-3', password: tooLong } }, 'admin.password'],
        ['tenant admin resets a password', `/api/users/${adminId}/password`, creds, { password: tooLong }, 'password'],
        ['operator resets a password', `/api/operator/users/${adminId}/password`, operator, { password: tooLong }, 'password'],
        ['own password change', '/api/auth/password', creds, { currentPassword: 'password-123', newPassword: tooLong }, 'newPassword'],
      ];
      for (const [name, url, as, body, field] of cases) {
        const res = await t.http().post(url).set(as).send(body);
        expect(res.status, name).toBe(400);
        expect(res.body.errors, name).toEqual([{ field, reason: 'must be at most 72 bytes (UTF-8)' }]);
      }
      expect(await rowCounts(db.dataSource)).toEqual(before);
      await login(t, 'alpha/alpha-admin', 'password-123');
    });

    it('accepts exactly 72 bytes, and only that password logs in', async () => {
      const res = await t.http().post('/api/users').set(await login(t, 'alpha/alpha-admin')).send({ username: 'alpha-72', password: fits, role: 'TENANT_VIEWER' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await login(t, 'alpha/alpha-72', fits);
      expect((await t.http().post('/api/auth/login').send({ tenant: 'alpha', username: 'alpha-72', password: fits.slice(0, -1) })).status).toBe(401);
    });
  });
});
