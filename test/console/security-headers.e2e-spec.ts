/**
 * Browser security headers on every console answer: the SPA, the health check, an API answer and
 * a 404 all carry the CSP (frame-ancestors 'none'), X-Frame-Options, nosniff and no-referrer, never
 * X-Powered-By; /api answers are not cacheable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'supertest';
import { useTestDatabase } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe('console security headers', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  const expectBrowserHeaders = (res: Response) => {
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
  };

  it('on the web console and its assets (cacheable)', async () => {
    for (const path of ['/', '/tasks', '/favicon.svg']) {
      const res = await t.http().get(path);
      expectBrowserHeaders(res);
      expect(res.headers['cache-control'] ?? '').not.toContain('no-store');
    }
  });

  it('on /api answers, with Cache-Control: no-store', async () => {
    const answers = [
      await t.http().get('/api/health'),
      await t.http().get('/api/tasks').set(acme.admin),
      await t.http().get('/api/tasks?limit=1').set(acme.viewerKey),
      await t.http().get('/api/tasks'), // 401
      await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'acme-admin', password: 'password-123' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 401, 200]);
    for (const res of answers) {
      expectBrowserHeaders(res);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it("on socket.io's answers, which its server gives before Express sees the request", async () => {
    const handshake = await t.http().get('/socket.io/?EIO=4&transport=polling');
    expect(handshake.status).toBe(200);
    expectBrowserHeaders(handshake);
    const refused = await t.http().get('/socket.io/?EIO=4&transport=nonsense');
    expect(refused.status).toBe(400);
    expectBrowserHeaders(refused);
  });

  it('on 404s', async () => {
    const apiMiss = await t.http().get('/api/no-such-route').set(acme.admin);
    expect(apiMiss.status).toBe(404);
    expectBrowserHeaders(apiMiss);
    expect(apiMiss.headers['cache-control']).toBe('no-store');
    const assetMiss = await t.http().get('/assets/no-such-file.js');
    expect(assetMiss.status).toBe(404);
    expectBrowserHeaders(assetMiss);
  });
});
