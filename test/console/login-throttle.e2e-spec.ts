/**
 * Login throttling: after 5 wrong passwords for an account from one client address, that address
 * waits before its next attempt of that account (429 RATE_LIMITED with Retry-After, even with the
 * right password), each further failure doubling the wait; the operator gets one warning line per
 * wait. A successful login clears the count. (Other addresses are not held back: accounts.e2e-spec.ts.)
 */
import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { insertUser, startConsole, type ConsoleTestApp } from './console-test-kit';

describe.each(TEST_DATABASES)('console login throttling on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  const attempt = (username: string, password: string) => t.http().post('/api/auth/login').send({ username, password });

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    await insertUser(db.dataSource, 'mallory-target', 'OPERATOR', null);
    await insertUser(db.dataSource, 'steady', 'OPERATOR', null);
  });
  afterAll(() => t?.close());
  afterEach(() => vi.restoreAllMocks());

  it('after 5 wrong passwords answers 429 with Retry-After, even to the right password, until the wait ends; the next failure doubles it', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    for (let i = 0; i < 5; i++) expect((await attempt('mallory-target', `guess-${i}`)).status).toBe(401);
    const sixth = await attempt('mallory-target', 'guess-5');
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBe('60');
    expect(sixth.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', error: 'Too Many Requests' });
    const right = await attempt('mallory-target', 'password-123');
    expect(right.status).toBe(429);
    expect(right.body.token).toBeUndefined();
    const delayLines = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('Login delay'));
    expect(delayLines).toHaveLength(1);
    expect(delayLines[0]).toContain('"/mallory-target"');
    expect(delayLines[0]).toMatch(/from address \S+/);

    t.clock.advance(30_000);
    expect((await attempt('mallory-target', 'password-123')).headers['retry-after']).toBe('30');
    t.clock.advance(30_000);
    expect((await attempt('mallory-target', 'guess-6')).status).toBe(401);
    expect((await attempt('mallory-target', 'password-123')).headers['retry-after']).toBe('120');
    t.clock.advance(120_000);
    expect((await attempt('mallory-target', 'password-123')).status).toBe(200);
  });

  it('a successful login resets the count: 4 failures, a success, 4 failures still answer 401', async () => {
    for (let i = 0; i < 4; i++) expect((await attempt('steady', `typo-${i}`)).status).toBe(401);
    expect((await attempt('steady', 'password-123')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await attempt('steady', `typo-${i}`)).status).toBe(401);
    expect((await attempt('steady', 'password-123')).status).toBe(200);
  });
});
