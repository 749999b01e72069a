/**
 * OpenID Connect sign-in against a real provider (oidc-provider on loopback, started here):
 * authorization code with PKCE, users provisioned at their first sign-in and kept in step with
 * their groups at each one, a user out of every mapped group loses its access, an operator can
 * require SSO for a tenant, logout ends the session here and at the provider; and the failures:
 * provider down, forged or expired ID token, state or PKCE verifier that does not match.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity, UserEntity } from '@baton/persistence';
import type { SsoOptions } from '../../apps/console/src/common/sso-options';
import { parseGroupMap } from '@baton/domain';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { CookieJar, finishSignIn, signIn, startSignIn, throughProvider } from '../support/oidc-browserless';
import { foreignSigner, jwtPayload, startTestProvider, type TestProvider } from '../support/oidc-test-provider';
import { seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

const PROVIDER_PORT = 18801;
const CONSOLE_URL = 'http://127.0.0.1:18811';
const REDIRECT_URL = `${CONSOLE_URL}/api/auth/oidc/callback`;

function oidcOptions(issuer: string): SsoOptions {
  return {
    oidc: { issuer, clientId: 'baton', clientSecret: 'baton-client-secret', redirectUrl: REDIRECT_URL, scopes: 'openid profile email groups', groupsClaim: 'groups', usernameClaim: 'preferred_username', name: 'Test IdP' },
    ldap: null,
    groupMap: parseGroupMap(['acme-admins=acme:TENANT_ADMIN', 'acme-viewers=acme:TENANT_VIEWER', 'nowhere=ghost:TENANT_VIEWER']),
  };
}

describe.each(TEST_DATABASES)('OpenID Connect sign-in on %s', (kind) => {
  const db = useTestDatabase(kind);
  let provider: TestProvider;
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let operator: Credentials;

  beforeAll(async () => {
    provider = await startTestProvider({
      port: PROVIDER_PORT,
      clientId: 'baton',
      clientSecret: 'baton-client-secret',
      redirectUrl: REDIRECT_URL,
      postLogoutUrl: `${CONSOLE_URL}/login`,
      users: {
        alice: { password: 'alice-pw', username: 'alice', email: 'alice@example.test', groups: ['staff', 'acme-admins'] },
        // Another user of the provider: its `sub` differs from alice's in case only.
        Alice: { password: 'Alice-pw', username: 'alice-twin', email: 'alice-twin@example.test', groups: ['acme-viewers'] },
        bob: { password: 'bob-pw', username: 'bob', email: 'bob@example.test', groups: ['acme-viewers'] },
        carol: { password: 'carol-pw', username: 'carol', email: 'carol@example.test', groups: ['nowhere'] },
        dave: { password: 'dave-pw', username: 'dave', email: 'dave@example.test', groups: ['acme-admins'] },
        mallory: { password: 'mallory-pw', username: 'api-key:chatops', email: 'mallory@example.test', groups: ['acme-viewers'] },
      },
    });
    t = await startConsole(db.dataSource, undefined, { sso: oidcOptions(provider.issuer) });
    acme = await seedTenant(t, db.dataSource, 'acme');
    operator = await seedOperator(t, db.dataSource);
  });
  afterEach(() => {
    provider.tamperIdToken = null;
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  const me = (cookie: string) => t.http().get('/api/auth/me').set('Cookie', cookie);
  const errorOf = (location: string) => new URL(location, CONSOLE_URL).searchParams.get('sso_error') ?? '';

  it('tells the login page about the provider', async () => {
    const res = await t.http().get('/api/auth/sso');
    expect(res.body).toEqual({ oidc: { name: 'Test IdP', startUrl: '/api/auth/oidc/start' }, ldap: false });
  });

  it('sends the browser to the provider with PKCE (S256), state and nonce', async () => {
    const { providerUrl, pendingCookie } = await startSignIn(t);
    const url = new URL(providerUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT_URL);
    expect(pendingCookie).toMatch(/^baton_oidc=/);
  });

  it('provisions a user at its first sign-in, in the tenant and role its groups map to', async () => {
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    expect(result.location).toBe('/');
    const res = await me(result.sessionCookie!);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: 'alice', role: 'TENANT_ADMIN', tenantId: 'acme', kind: 'session', sso: 'oidc' });
    const row = await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoProvider: 'oidc', ssoSubject: 'alice' });
    expect(row).toMatchObject({ tenantId: 'acme', role: 'TENANT_ADMIN' });
    const [audit] = await db.dataSource.query("SELECT action, actor_name, after_json FROM audit_log WHERE action = 'auth.login' AND actor_name = 'alice'");
    expect(JSON.parse(audit.after_json)).toMatchObject({ method: 'oidc', provisioned: { tenantId: 'acme', role: 'TENANT_ADMIN' } });
    // It has no password: a password login as alice fails like any wrong password.
    expect((await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'alice', password: '!sso' })).status).toBe(401);
  });

  it("tells subjects apart as the provider does, case included: its user `Alice` is not the account of its user `alice`", async () => {
    const alice = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    const twin = await signIn(t, REDIRECT_URL, new CookieJar(), 'Alice', 'Alice-pw');
    expect((await me(twin.sessionCookie!)).body).toMatchObject({ username: 'alice-twin', role: 'TENANT_VIEWER', tenantId: 'acme' });
    // alice keeps its role and its session.
    expect((await me(alice.sessionCookie!)).body).toMatchObject({ username: 'alice', role: 'TENANT_ADMIN', tenantId: 'acme' });
    const rows = await db.dataSource.getRepository(UserEntity).find({ where: { ssoProvider: 'oidc' }, order: { id: 'ASC' } });
    expect(rows.filter((r) => r.ssoSubject?.toLowerCase() === 'alice').map((r) => [r.ssoSubject, r.username, r.role])).toEqual([
      ['alice', 'alice', 'TENANT_ADMIN'],
      ['Alice', 'alice-twin', 'TENANT_VIEWER'],
    ]);
  });

  it('keeps the user in step at each sign-in: a role change applies and ends its older sessions', async () => {
    const jar = new CookieJar();
    const first = await signIn(t, REDIRECT_URL, jar, 'dave', 'dave-pw');
    const id = (await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoSubject: 'dave' })).id;
    provider.users.dave.groups = ['acme-viewers'];
    const second = await signIn(t, REDIRECT_URL, jar, 'dave', 'dave-pw');
    expect((await me(second.sessionCookie!)).body).toMatchObject({ username: 'dave', role: 'TENANT_VIEWER', tenantId: 'acme' });
    expect((await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoSubject: 'dave' })).id).toBe(id);
    expect((await me(first.sessionCookie!)).status).toBe(401);
  });

  it('takes all access from a user no longer in any mapped group', async () => {
    const jar = new CookieJar();
    const before = await signIn(t, REDIRECT_URL, jar, 'bob', 'bob-pw');
    expect((await me(before.sessionCookie!)).status).toBe(200);
    provider.users.bob.groups = ['staff'];
    const after = await signIn(t, REDIRECT_URL, jar, 'bob', 'bob-pw');
    expect(after.sessionCookie).toBeNull();
    expect(errorOf(after.location)).toContain('None of your groups gives access to Baton');
    expect((await me(before.sessionCookie!)).status).toBe(401);
    const row = await db.dataSource.getRepository(UserEntity).findOneByOrFail({ ssoSubject: 'bob' });
    expect(row.disabled).toBeTruthy();
    expect(await db.dataSource.getRepository(SessionEntity).countBy({ userId: row.id })).toBe(0);
  });

  it('refuses a group that maps to a tenant that does not exist, naming it', async () => {
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'carol', 'carol-pw');
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toContain('tenant "ghost", which does not exist');
  });

  it("refuses a directory name that is an API key's principal name (it would decide the approval steps naming that key), provisioning no one", async () => {
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'mallory', 'mallory-pw');
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toContain('starts with "api-key:", which Baton keeps for API keys');
    expect(await db.dataSource.getRepository(UserEntity).countBy({ ssoSubject: 'mallory' })).toBe(0);
    const [audit] = await db.dataSource.query("SELECT after_json FROM audit_log WHERE action = 'auth.login-failed' AND actor_name = 'api-key:chatops'");
    expect(JSON.parse(audit.after_json)).toMatchObject({ method: 'oidc', reason: expect.stringContaining('keeps for API keys') });
  });

  it('refuses a forged ID token (signed by another key)', async () => {
    const forge = foreignSigner();
    provider.tamperIdToken = (token) => forge(jwtPayload(token));
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toMatch(/signature/i);
    const [audit] = await db.dataSource.query("SELECT actor_name, after_json FROM audit_log WHERE action = 'auth.login-failed' ORDER BY id DESC LIMIT 1");
    expect(audit.actor_name).toBe('(oidc)');
    expect(JSON.parse(audit.after_json).reason).toMatch(/signature/i);
  });

  it('refuses an expired ID token, even signed by the provider', async () => {
    provider.tamperIdToken = (token) => {
      const now = Math.floor(Date.now() / 1000);
      return provider.signIdToken({ ...jwtPayload(token), iat: now - 7200, exp: now - 3600 });
    };
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toMatch(/"exp"/);
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    const jar = new CookieJar();
    const first = await startSignIn(t);
    const second = await startSignIn(t);
    const callbackUrl = await throughProvider(first.providerUrl, REDIRECT_URL, jar, 'alice', 'alice-pw');
    const result = await finishSignIn(t, callbackUrl, second.pendingCookie);
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toMatch(/state/);
  });

  it('refuses a code exchanged with another PKCE verifier', async () => {
    const { providerUrl, pendingCookie } = await startSignIn(t);
    const pending = JSON.parse(Buffer.from(pendingCookie.slice('baton_oidc='.length), 'base64url').toString()) as Record<string, string>;
    const tampered = `baton_oidc=${Buffer.from(JSON.stringify({ ...pending, verifier: 'x'.repeat(43) })).toString('base64url')}`;
    const callbackUrl = await throughProvider(providerUrl, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    const result = await finishSignIn(t, callbackUrl, tampered);
    expect(result.sessionCookie).toBeNull();
    expect(errorOf(result.location)).toMatch(/invalid_grant/);
  });

  it('refuses a callback without the pending sign-in cookie (another browser, or too late)', async () => {
    const { providerUrl } = await startSignIn(t);
    const callbackUrl = await throughProvider(providerUrl, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    const result = await finishSignIn(t, callbackUrl, '');
    expect(errorOf(result.location)).toContain('not started in this browser');
  });

  it('lets an operator require SSO for a tenant: password logins refused, SSO and API keys still work', async () => {
    const patch = await t.http().patch('/api/operator/tenants/acme').set(operator).send({ ssoRequired: true });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(patch.body.ssoRequired).toBe(true);
    const password = await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'acme-admin', password: 'password-123' });
    expect(password.status).toBe(403);
    expect(password.body.message).toContain('requires single sign-on');
    const refusals = await db.dataSource.query("SELECT tenant_id, actor_name, after_json FROM audit_log WHERE action = 'auth.login-failed' AND actor_name = 'acme-admin'");
    expect(refusals.map((r: { after_json: string }) => JSON.parse(r.after_json))).toEqual([{ tenant: 'acme', username: 'acme-admin', reason: 'the tenant requires single sign-on' }]);
    // The tenant's password sessions ended with it.
    expect((await t.http().get('/api/tasks').set(acme.admin)).status).toBe(401);
    expect((await t.http().get('/api/tasks').set(acme.adminKey)).status).toBe(200);
    provider.users.alice.groups = ['acme-admins'];
    const sso = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    expect((await me(sso.sessionCookie!)).status).toBe(200);
    await t.http().patch('/api/operator/tenants/acme').set(operator).send({ ssoRequired: false });
    expect((await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'acme-admin', password: 'password-123' })).status).toBe(200);
  });

  it('logout (a POST with the session\'s CSRF token) ends the Baton session, then sends the browser to the provider to end its own', async () => {
    const result = await signIn(t, REDIRECT_URL, new CookieJar(), 'alice', 'alice-pw');
    // A link or an image on another site cannot end the session: no GET, no POST without the token.
    expect((await t.http().get('/api/auth/oidc/logout').set('Cookie', result.sessionCookie!)).status).toBe(404);
    expect((await t.http().post('/api/auth/oidc/logout').set('Cookie', result.sessionCookie!)).status).toBe(403);
    expect((await me(result.sessionCookie!)).status).toBe(200);
    const csrfToken = (await me(result.sessionCookie!)).body.csrfToken as string;
    const res = await t.http().post('/api/auth/oidc/logout').set('Cookie', result.sessionCookie!).set('X-CSRF-Token', csrfToken);
    expect(res.status).toBe(200);
    const endSession = new URL(res.body.redirectTo as string);
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${CONSOLE_URL}/login`);
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => /^baton_session=;/.test(c))).toBe(true);
    expect((await me(result.sessionCookie!)).status).toBe(401);
  });
});

describe('OpenID Connect callbacks', () => {
  const db = useTestDatabase('sqlite');
  let off: ConsoleTestApp;
  let on: ConsoleTestApp;

  beforeAll(async () => {
    off = await startConsole(db.dataSource);
    // A provider nobody reaches: every callback fails.
    on = await startConsole(db.dataSource, undefined, { sso: oidcOptions('http://127.0.0.1:18809') });
  });
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });
  const failedLogins = async () => Number((await db.dataSource.query("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'auth.login-failed'"))[0].n);

  it('records nothing when OpenID Connect is off', async () => {
    const before = await failedLogins();
    for (let i = 0; i < 5; i++) {
      const res = await off.http().get(`/api/auth/oidc/callback?code=x&state=s${i}`);
      expect(res.status).toBe(302);
      expect(res.headers['location']).toContain('sso_error=');
    }
    expect(await failedLogins()).toBe(before);
  });

  it('throttles failed callbacks from one address as password logins are: past 20, refused unrecorded', async () => {
    const before = await failedLogins();
    for (let i = 0; i < 30; i++) expect((await on.http().get(`/api/auth/oidc/callback?code=x&state=flood-${i}`)).status).toBe(302);
    expect(await failedLogins()).toBe(before + 20);
    const last = await on.http().get('/api/auth/oidc/callback?code=x&state=flood-last');
    expect(decodeURIComponent(last.headers['location'] as string)).toContain('Too many failed');
  });
});

describe('OpenID Connect sign-in with the provider down', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;

  beforeAll(async () => {
    // Nothing listens there (a port of this suite's range that no test starts).
    t = await startConsole(db.dataSource, undefined, { sso: oidcOptions('http://127.0.0.1:18809') });
  });
  afterAll(async () => t?.close());

  it('sends the browser back to the login page with a clear reason', async () => {
    const res = await t.http().get('/api/auth/oidc/start');
    expect(res.status).toBe(302);
    const reason = new URL(res.headers['location'] as string, CONSOLE_URL).searchParams.get('sso_error');
    expect(reason).toContain('Sign-in with Test IdP refused: the identity provider at http://127.0.0.1:18809 cannot be reached');
  });
});
