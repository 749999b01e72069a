/**
 * Browser sessions ride in a cookie that scripts cannot read: login sets `baton_session`
 * (HttpOnly, SameSite=Strict, Path=/, Max-Age of the session, Secure when the request came over
 * https). A request authenticated by that cookie alone must echo the CSRF token of its session in
 * `X-CSRF-Token` on every write (403 naming the header otherwise, nothing stored); bearer tokens
 * and API keys need none. Logout ends the session and clears the cookie; socket.io accepts the
 * cookie alone, from the console's own origin.
 */
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity } from '@baton/persistence';
import type { AlarmAckReply } from '../../apps/console/src/alarms/alarm-gateway';
import { sha256Hex } from '../../apps/console/src/common/secrets';
import { useTestDatabase } from '../support/databases';
import { cronTask, insertAlarm, listenOnLoopback, rowCounts, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

interface CookieLogin {
  /** `baton_session=<token>`, as a browser sends it back. */
  cookie: string;
  /** The Set-Cookie line of the login answer. */
  setCookie: string;
  token: string;
  csrfToken: string;
}

describe('session cookie and CSRF token', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let url: string;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    [acme, url] = [await seedTenant(t, db.dataSource, 'acme'), await listenOnLoopback(t)];
  });
  afterAll(async () => {
    sockets.forEach((s) => s.disconnect());
    await t?.close();
  });

  const cookieLogin = async (headers: Record<string, string> = {}): Promise<CookieLogin> => {
    const res = await t.http().post('/api/auth/login').set(headers).send({ tenant: 'acme', username: 'acme-admin', password: 'password-123' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('baton_session='));
    expect(setCookie, 'login sets the session cookie').toBeDefined();
    return { setCookie: setCookie!, cookie: setCookie!.split(';', 1)[0], token: res.body.token, csrfToken: res.body.csrfToken };
  };

  it('login sets an HttpOnly, SameSite=Strict cookie for the whole site, as long-lived as the session', async () => {
    const login = await cookieLogin();
    const attributes = login.setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(login.cookie).toBe(`baton_session=${login.token}`);
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain('path=/');
    expect(attributes).toContain(`max-age=${12 * 60 * 60}`);
    // Plain http (tests, loopback in development): a Secure cookie would never come back.
    expect(attributes).not.toContain('secure');
    expect(login.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.csrfToken).not.toBe(login.token);
  });

  it('is Secure when the request came over https (X-Forwarded-Proto of a TLS proxy)', async () => {
    const login = await cookieLogin({ 'X-Forwarded-Proto': 'https' });
    expect(login.setCookie.split(';').map((a) => a.trim().toLowerCase())).toContain('secure');
  });

  it('the cookie alone authenticates reads; GET /api/auth/me gives the CSRF token back', async () => {
    const login = await cookieLogin();
    expect((await t.http().get('/api/tasks').set('Cookie', login.cookie)).status).toBe(200);
    const me = await t.http().get('/api/auth/me').set('Cookie', login.cookie);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'acme-admin', kind: 'session', csrfToken: login.csrfToken });
  });

  it('a write authenticated by the cookie without the CSRF token is refused (403 naming X-CSRF-Token) and stores nothing', async () => {
    const login = await cookieLogin();
    const before = await rowCounts(db.dataSource);
    const missing = await t.http().post('/api/tasks').set('Cookie', login.cookie).send(cronTask('csrf-missing'));
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', errors: [{ field: 'X-CSRF-Token', reason: expect.stringMatching(/missing/) }] });
    expect(missing.body.message).toContain('X-CSRF-Token');
    const other = await cookieLogin();
    for (const wrong of ['nonsense', other.csrfToken, login.token]) {
      const res = await t.http().post('/api/tasks').set('Cookie', login.cookie).set('X-CSRF-Token', wrong).send(cronTask('csrf-wrong'));
      expect(res.status, wrong).toBe(403);
      expect(res.body.errors).toEqual([{ field: 'X-CSRF-Token', reason: expect.stringMatching(/does not match/) }]);
    }
    for (const method of ['put', 'patch', 'delete'] as const) {
      expect((await t.http()[method]('/api/tasks/1').set('Cookie', login.cookie).send({})).status, method).toBe(403);
    }
    expect(await rowCounts(db.dataSource)).toEqual(before);
    const ok = await t.http().post('/api/tasks').set('Cookie', login.cookie).set('X-CSRF-Token', login.csrfToken).send(cronTask('csrf-ok'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('bearer sessions and API keys write without a CSRF token (a cross-site page cannot set their headers)', async () => {
    const login = await cookieLogin();
    expect((await t.http().post('/api/tasks').set('Authorization', `Bearer ${login.token}`).send(cronTask('bearer-write'))).status).toBe(201);
    expect((await t.http().post('/api/tasks').set(acme.adminKey).send(cronTask('key-write'))).status).toBe(201);
    // A header credential wins over a cookie: the cookie is not what authenticated, no CSRF token needed.
    expect((await t.http().post('/api/tasks').set(acme.adminKey).set('Cookie', login.cookie).send(cronTask('key-and-cookie'))).status).toBe(201);
  });

  it('logout (a write: CSRF token required) ends the session and clears the cookie', async () => {
    const login = await cookieLogin();
    expect((await t.http().post('/api/auth/logout').set('Cookie', login.cookie)).status).toBe(403);
    const res = await t.http().post('/api/auth/logout').set('Cookie', login.cookie).set('X-CSRF-Token', login.csrfToken);
    expect(res.status).toBe(204);
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('baton_session='));
    expect(cleared).toMatch(/^baton_session=;/);
    expect(cleared!.toLowerCase()).toContain('max-age=0');
    expect(await db.dataSource.getRepository(SessionEntity).existsBy({ tokenHash: sha256Hex(login.token) })).toBe(false);
    expect((await t.http().get('/api/tasks').set('Cookie', login.cookie)).status).toBe(401);
  });

  it('a cookie of an ended or unknown session is a 401 that clears the cookie', async () => {
    const res = await t.http().get('/api/tasks').set('Cookie', 'theme=dark; baton_session=not-a-session');
    expect(res.status).toBe(401);
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => /^baton_session=;.*max-age=0/i.test(c))).toBe(true);
  });

  const open = (options: { cookie?: string; origin?: string }): Promise<ClientSocket> => {
    const extraHeaders: Record<string, string> = {};
    if (options.cookie) extraHeaders.cookie = options.cookie;
    if (options.origin) extraHeaders.origin = options.origin;
    const socket = connect(url, { extraHeaders, transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(socket));
      socket.once('connect_error', reject);
    });
  };

  it('socket.io connects with the session cookie alone, from the console origin, and acks alarms', async () => {
    const login = await cookieLogin();
    const socket = await open({ cookie: login.cookie, origin: url });
    const alarm = await insertAlarm(db.dataSource, acme.id);
    expect((await socket.timeout(30_000).emitWithAck('alarm:ack', { alarmId: alarm.id })) as AlarmAckReply).toMatchObject({ ok: true });
  });

  it('socket.io refuses a cookie sent from a page of another origin (a cross-site WebSocket)', async () => {
    const login = await cookieLogin();
    const err = (await open({ cookie: login.cookie, origin: 'http://127.0.0.1:1' }).then(
      () => null,
      (e: Error & { data?: { statusCode: number } }) => e,
    ))!;
    expect(err).not.toBeNull();
    expect(err.data?.statusCode).toBe(403);
    await expect(open({ cookie: 'baton_session=not-a-session' })).rejects.toMatchObject({ data: { statusCode: 401 } });
  });
});
