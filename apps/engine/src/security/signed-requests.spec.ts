import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { PATHS } from '@baton/protocol';
import { seedTenant, signedPost, startDispatchSide, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';

/** A body each signed route reads (never reached here: every request below is refused before it is parsed). */
const ROUTES: Array<[string, unknown]> = [
  [PATHS.heartbeat, { tenantId: TENANT, app: 'billing', url: 'http://10.0.0.7:7070', capacity: 4, inFlight: 0, handlers: ['charge'] }],
  [PATHS.callback, { tenantId: TENANT, runId: 1, attempt: 1, outcome: 'SUCCEEDED', startedAt: 1, finishedAt: 2 }],
  [PATHS.callbackBatch, { callbacks: [{ tenantId: TENANT, runId: 1, attempt: 1, outcome: 'SUCCEEDED', startedAt: 1, finishedAt: 2 }] }],
  [PATHS.wake, { dueAt: 1 }],
  [PATHS.cancelled, { runIds: [1] }],
];

/**
 * Whoever does not hold a tenant's executor secret learns nothing from the signed routes of which
 * tenants exist: a tenant that does not exist is answered as a wrong secret of one that does,
 * whichever check fails first; the engine's log tells the operator which it was.
 */
describe.each(TEST_DATABASES)('signed requests naming no tenant on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
  });
  afterAll(() => engine?.close());
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
  });
  afterEach(() => vi.restoreAllMocks());

  it('answers a tenant that does not exist as a wrong secret of one that does, on every signed route', async () => {
    for (const [path, payload] of ROUTES) {
      const wrongSecret = await signedPost(engine.url, path, payload, { secret: 'a-guessed-secret' });
      const noTenant = await signedPost(engine.url, path, payload, { tenantId: 'no-such-tenant', secret: 'a-guessed-secret' });
      expect(wrongSecret.status, path).toBe(401);
      expect(noTenant, path).toMatchObject({ status: wrongSecret.status, body: wrongSecret.body });
      expect(wrongSecret.body).toEqual({
        statusCode: 401,
        code: 'BAD_SIGNATURE',
        error: 'Unauthorized',
        message: 'signature refused: the tenant (x-baton-tenant) or the executor secret is wrong, or the request was changed on its way',
        reason: 'BAD_SIGNATURE',
      });
    }
  });

  it('answers alike when a check before the signature fails (a stale timestamp, a malformed signature)', async () => {
    const [path, payload] = ROUTES[0];
    const stale = (tenantId: string) => signedPost(engine.url, path, payload, { tenantId, now: Date.now() - 3_600_000 });
    expect((await stale('no-such-tenant')).body).toEqual((await stale(TENANT)).body);
    expect((await stale(TENANT)).body.reason).toBe('STALE_TIMESTAMP');
    const malformed = async (tenantId: string) => {
      const { headers } = await signedPost(engine.url, path, payload, { tenantId });
      return signedPost(engine.url, path, payload, { headers: { ...headers, 'x-baton-signature': headers['x-baton-signature'].toUpperCase() } });
    };
    expect((await malformed('no-such-tenant')).body).toEqual((await malformed(TENANT)).body);
    expect((await malformed(TENANT)).body.reason).toBe('MALFORMED_SIGNATURE');
  });

  it('logs the real reason for the operator: the tenant that does not exist, or the tenant whose signature was wrong', async () => {
    // An engine of its own: the refusals above were logged by the shared one, which stays quiet for 10 s after a line.
    const fresh = await startDispatchSide(db.dataSource);
    const warn = vi.spyOn(Logger.prototype, 'warn');
    try {
      await signedPost(fresh.url, PATHS.heartbeat, ROUTES[0][1], { tenantId: 'no-such-tenant' });
      await signedPost(fresh.url, PATHS.heartbeat, ROUTES[0][1], { secret: 'a-guessed-secret' });
    } finally {
      await fresh.close();
    }
    const lines = warn.mock.calls.map(([message]) => String(message));
    expect(lines).toContainEqual(expect.stringMatching(/naming no tenant \("no-such-tenant"\) refused, answered BAD_SIGNATURE as a wrong secret/));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`tenant ${TENANT}'s signed request to ${PATHS.heartbeat} refused \\(BAD_SIGNATURE`)));
  });
});
