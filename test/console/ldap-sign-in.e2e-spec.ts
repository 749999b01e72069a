/**
 * LDAP sign-in against a real OpenLDAP (slapd, started here by scripts/ldap-test-server.sh from
 * its committed config and LDIF): a user binds as itself, its groups map to a tenant and role
 * as OIDC's do, it is provisioned and kept in step; removed from its LDAP group, it has no access
 * at its next sign-in. Wrong passwords are a 401 that counts against the login throttle; a
 * directory that cannot be reached is a 503 that says so. Every spelling the directory binds as one
 * entry (spaces around the name, its case, full-width letters) is that one user, on both databases.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGroupMap } from '@baton/domain';
import { UserEntity } from '@baton/persistence';
import type { SsoOptions } from '../../apps/console/src/common/sso-options';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const ROOT = resolve(__dirname, '../..');
const SCRIPT = resolve(ROOT, 'scripts/ldap-test-server.sh');
const DIR = resolve(ROOT, '.tmp/slapd-ldap-test');
const PORT = Number(process.env.BATON_LDAP_TEST_PORT ?? 18821);
const URL = `ldap://127.0.0.1:${PORT}`;

function ldapOptions(url: string): SsoOptions {
  return {
    oidc: null,
    ldap: { url, userDn: 'uid={username},ou=people,dc=baton,dc=test', groupBase: 'ou=groups,dc=baton,dc=test', groupFilter: '(&(objectClass=groupOfNames)(member={dn}))', groupAttribute: 'cn' },
    groupMap: parseGroupMap(['baton-acme-admins=acme:TENANT_ADMIN', 'baton-acme-viewers=acme:TENANT_VIEWER']),
  };
}

/** As the directory's admin: removes `uid` from group `cn`. */
async function removeFromGroup(cn: string, uid: string): Promise<void> {
  const admin = new Client({ url: URL });
  try {
    await admin.bind('cn=admin,dc=baton,dc=test', 'admin-password');
    await admin.modify(`cn=${cn},ou=groups,dc=baton,dc=test`, [new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [`uid=${uid},ou=people,dc=baton,dc=test`] }) })]);
  } finally {
    await admin.unbind();
  }
}

describe.each(TEST_DATABASES)('LDAP sign-in on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    // A fresh directory for each database (the script stops the one before): a test below changes its groups.
    execFileSync('bash', [SCRIPT, 'start', DIR, String(PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    t = await startConsole(db.dataSource, undefined, { sso: ldapOptions(URL) });
    // Trusts X-Forwarded-For: a test's failed logins come from an address of its own.
    (t.app.getHttpAdapter().getInstance() as { set(name: string, value: unknown): void }).set('trust proxy', true);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(async () => {
    await t?.close();
    execFileSync('bash', [SCRIPT, 'stop', DIR]);
  });

  const ldapLogin = (username: string, password: string, address = '10.9.0.1') => t.http().post('/api/auth/ldap/login').set('X-Forwarded-For', address).send({ username, password });
  const ldapUsers = () => db.dataSource.getRepository(UserEntity).find({ where: { ssoProvider: 'ldap' }, order: { id: 'ASC' } });

  it('tells the login page that LDAP sign-in is on', async () => {
    expect((await t.http().get('/api/auth/sso')).body).toEqual({ oidc: null, ldap: true });
  });

  it('provisions a user at its first bind, in the tenant and role its groups map to', async () => {
    const res = await ldapLogin('erin', 'erin-password');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user).toEqual({ username: 'erin', role: 'TENANT_ADMIN', tenantId: 'acme' });
    const me = await t.http().get('/api/auth/me').set('Authorization', `Bearer ${res.body.token}`);
    expect(me.body).toMatchObject({ username: 'erin', sso: 'ldap' });
    const row = await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoProvider: 'ldap', username: 'erin' });
    expect(row.ssoSubject).toBe('uid=erin,ou=people,dc=baton,dc=test');
  });

  const auditRows = (): Promise<Array<{ action: string; actor_name: string; after_json: string | null }>> =>
    db.dataSource.query("SELECT action, actor_name, after_json FROM audit_log WHERE action LIKE 'auth.login%' ORDER BY id");

  it('audits each sign-in with one record: the login (method, what changed) or the failed login', async () => {
    const before = (await auditRows()).length;
    expect((await ldapLogin('grace', 'grace-password')).status).toBe(200);
    expect((await ldapLogin('grace', 'wrong')).status).toBe(401);
    expect((await ldapLogin('grace', '')).status).toBe(400);
    const rows = (await auditRows()).slice(before);
    expect(rows.map((r) => [r.action, r.actor_name])).toEqual([
      ['auth.login', 'grace'],
      ['auth.login-failed', 'grace'],
    ]);
    expect(JSON.parse(rows[0].after_json!)).toMatchObject({ method: 'ldap', provisioned: { tenantId: 'acme', role: 'TENANT_VIEWER' } });
  });

  it('refuses a wrong password with a 401, and an empty one before it reaches the directory', async () => {
    expect((await ldapLogin('erin', 'wrong')).status).toBe(401);
    expect((await ldapLogin('nobody', 'whatever')).status).toBe(401);
    const empty = await ldapLogin('erin', '');
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('password');
  });

  it('does not let a crafted name change the DN or the filter', async () => {
    expect((await ldapLogin('erin,ou=people', 'erin-password')).status).toBe(401);
    expect((await ldapLogin('*', 'erin-password')).status).toBe(401);
  });

  // The directory binds `uid=\  erin`, `uid=ERIN`, `uid=ｅｒｉｎ` as `uid=erin` (its matching rule folds spaces, case, width).
  const ERIN_SPELLINGS = ['  erin', 'erin  ', 'ERIN', ' Erin\t', 'ｅｒｉｎ'];

  it('signs in every spelling the directory binds as one user, named as the directory names it', async () => {
    for (const spelling of ERIN_SPELLINGS) {
      const res = await ldapLogin(spelling, 'erin-password');
      expect(res.status, `${JSON.stringify(spelling)}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.user).toEqual({ username: 'erin', role: 'TENANT_ADMIN', tenantId: 'acme' });
    }
    const erins = (await ldapUsers()).filter((u) => u.tenantId === 'acme' && u.role === 'TENANT_ADMIN');
    expect(erins.map((u) => [u.username, u.ssoSubject])).toEqual([['erin', 'uid=erin,ou=people,dc=baton,dc=test']]);
  });

  it('counts wrong passwords of every spelling as one name: the sixth try of the name waits', async () => {
    const spellings = ['grace', ' grace', 'GRACE', 'grace ', 'ｇｒａｃｅ'];
    for (const spelling of spellings) expect((await ldapLogin(spelling, 'wrong', '10.9.0.2')).status).toBe(401);
    const right = await ldapLogin('grace', 'grace-password', '10.9.0.2');
    expect(right.status).toBe(429);
    expect(right.body.code).toBe('RATE_LIMITED');
    // Another address is not held back.
    expect((await ldapLogin('grace', 'grace-password', '10.9.0.3')).status).toBe(200);
  });

  it('keeps a disabled user out under every spelling, and makes no account of another spelling', async () => {
    const erin = (await ldapUsers()).find((u) => u.username === 'erin')!;
    expect((await t.http().patch(`/api/users/${erin.id}`).set(acme.admin).send({ disabled: true })).status).toBe(200);
    const before = await ldapUsers();
    for (const spelling of ['erin', ...ERIN_SPELLINGS]) {
      const res = await ldapLogin(spelling, 'erin-password', '10.9.0.4');
      expect(res.status, `${JSON.stringify(spelling)}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.message).toBe('Your Baton account "erin" is disabled: ask an administrator to enable it');
    }
    expect(await ldapUsers()).toEqual(before);
    expect((await t.http().patch(`/api/users/${erin.id}`).set(acme.admin).send({ disabled: false })).status).toBe(200);
    expect((await ldapLogin('  erin', 'erin-password')).status).toBe(200);
  });

  it('removes access at the next sign-in of a user removed from its LDAP group', async () => {
    const before = await ldapLogin('frank', 'frank-password');
    expect(before.status).toBe(200);
    expect(before.body.user.role).toBe('TENANT_VIEWER');
    await removeFromGroup('baton-acme-viewers', 'frank');
    const after = await ldapLogin('frank', 'frank-password');
    expect(after.status).toBe(403);
    expect(after.body.message).toContain('None of your groups gives access to Baton');
    // Its earlier session ended with its access.
    expect((await t.http().get('/api/auth/me').set('Authorization', `Bearer ${before.body.token}`)).status).toBe(401);
    expect((await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoProvider: 'ldap', username: 'frank' })).disabled).toBeTruthy();
  });
});

describe('LDAP sign-in with the directory down', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;

  beforeAll(async () => {
    t = await startConsole(db.dataSource, undefined, { sso: ldapOptions('ldap://127.0.0.1:18829') });
  });
  afterAll(async () => t?.close());

  it('answers 503 naming the directory', async () => {
    const res = await t.http().post('/api/auth/ldap/login').send({ username: 'erin', password: 'erin-password' });
    expect(res.status).toBe(503);
    expect(res.body.message).toContain('The LDAP directory at ldap://127.0.0.1:18829 cannot be reached');
  });
});
