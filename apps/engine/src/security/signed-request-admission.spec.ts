import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { createExecutorServer, defineHandler, type ExecutorServer } from '@baton/executor-sdk';
import { ManualClock } from '@baton/domain';
import { PATHS, sign, type ExecutorHeartbeat, type RunCallback } from '@baton/protocol';
import { claimedRunOf, eventually, seedRun, seedTask, seedTenant, startDispatchSide, SECRET, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';
import { DueQueue } from '../dispatch/due-queue';
import { SignedRequestAdmission } from './signed-request-admission';

const OTHER = 'globex';
const OTHER_SECRET = 'globex-executor-secret';

/** A signed POST; the answer with its Retry-After header. Each call signs anew (a later timestamp), as an executor's retry does. */
let signedAt = Date.now();
async function post(engineUrl: string, path: string, payload: unknown, tenant = { id: TENANT, secret: SECRET }): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const body = JSON.stringify(payload);
  signedAt = Math.max(Date.now(), signedAt + 1);
  const headers = { ...sign(tenant.secret, tenant.id, 'POST', path, body, signedAt), 'content-type': 'application/json' };
  const res = await fetch(engineUrl + path, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, retryAfter: res.headers.get('retry-after') };
}

const heartbeat = (tenantId: string, port: number): ExecutorHeartbeat => ({ tenantId, app: 'billing', url: `http://10.0.0.7:${port}`, capacity: 4, inFlight: 0, handlers: ['charge'] });
/** A final callback of a run that does not exist: answered 409 UNKNOWN_RUN (the database is read). */
const unknownRunCallback = (tenantId: string, runId: number): RunCallback => ({ tenantId, runId, attempt: 1, outcome: 'SUCCEEDED', startedAt: Date.now(), finishedAt: Date.now() });

async function refusedCount(engine: DispatchSideApp, reason: string): Promise<number> {
  const metric = await engine.metrics.signedRequestsRefused.get();
  return metric.values.filter((v) => v.labels.reason === reason).reduce((sum, v) => sum + v.value, 0);
}

/**
 * Per-tenant admission on a real engine (the dispatch side's modules, real HTTP, signed
 * requests): a tenant past its bounds gets 429 with the ErrorBody and Retry-After, the other
 * tenant is answered as usual, and nobody can spend a tenant's budget by naming it.
 */
describe.each(TEST_DATABASES)('admission of signed requests per tenant on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;

  // Each test its own engine, so each starts with full buckets: 5 requests at once, then 1 a second; one at a time, none waiting.
  // Its clock stands still: a bucket refilled while the requests crawled through a loaded machine (a sixth
  // request answered 409, not 429, when the five before it took over a second).
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
    await seedTenant(db.dataSource, { id: OTHER, secret: OTHER_SECRET });
    engine = await startDispatchSide(db.dataSource, { tenantRequestsInFlight: 1, tenantRequestsWaiting: 0, tenantRequestRate: 1, tenantRequestBurst: 5 }, { clock: new ManualClock(Date.now()) });
  });
  afterEach(() => engine?.close());

  it("refuses a tenant past its rate with 429 TENANT_RATE_LIMITED and Retry-After, while the other tenant's requests are answered as usual", async () => {
    const other = { id: OTHER, secret: OTHER_SECRET };
    const before = await refusedCount(engine, 'TENANT_RATE_LIMITED');
    for (let i = 0; i < 5; i++) expect((await post(engine.url, PATHS.callback, unknownRunCallback(TENANT, 900 + i))).status).toBe(409);
    const refused = await post(engine.url, PATHS.callback, unknownRunCallback(TENANT, 999));
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('1');
    expect(refused.body).toEqual({ statusCode: 429, code: 'TENANT_RATE_LIMITED', error: 'Too Many Requests', message: expect.stringContaining('rate'), retryAfterSeconds: 1 });
    // Every signed route draws on the same budget: a heartbeat is refused too, and registers nothing.
    const refusedBeat = await post(engine.url, PATHS.heartbeat, heartbeat(TENANT, 7001));
    expect(refusedBeat.status).toBe(429);
    expect(await db.dataSource.query('SELECT id FROM executors WHERE tenant_id = ?', [TENANT])).toEqual([]);
    expect(await refusedCount(engine, 'TENANT_RATE_LIMITED')).toBe(before + 2);

    // The other tenant: its own budget, untouched by the first's.
    for (let i = 0; i < 3; i++) expect((await post(engine.url, PATHS.callback, unknownRunCallback(OTHER, 900 + i), other)).status).toBe(409);
    const beat = await post(engine.url, PATHS.heartbeat, heartbeat(OTHER, 7002), other);
    expect(beat.status).toBe(200);
    expect(beat.body).toMatchObject({ intervalMs: expect.any(Number) });
    expect(beat.retryAfter).toBeNull();
  });

  it("counts a request against the tenant its signature verified: naming another tenant in the header spends nothing of the other's", async () => {
    const other = { id: OTHER, secret: OTHER_SECRET };
    // The first tenant signs with its own secret but claims to be the other: 401, before any admission.
    for (let i = 0; i < 10; i++) {
      const forged = await post(engine.url, PATHS.callback, unknownRunCallback(OTHER, 800 + i), { id: OTHER, secret: SECRET });
      expect(forged.status).toBe(401);
      expect(forged.body).toMatchObject({ code: 'BAD_SIGNATURE' });
    }
    // The other tenant still has its whole burst.
    for (let i = 0; i < 5; i++) expect((await post(engine.url, PATHS.callback, unknownRunCallback(OTHER, 900 + i), other)).status).toBe(409);
    expect((await post(engine.url, PATHS.callback, unknownRunCallback(OTHER, 999), other)).status).toBe(429);
  });

  it("refuses a tenant with all its places taken with 429 TENANT_BUSY (nothing done), while the other tenant's requests go through", async () => {
    const admission = engine.get(SignedRequestAdmission);
    // A slow request of the first tenant holds its one place (BATON_TENANT_REQUESTS_IN_FLIGHT = 1, none may wait).
    let finish!: () => void;
    const held = admission.run(TENANT, PATHS.callback, () => new Promise<void>((resolve) => (finish = resolve)));
    try {
      const refused = await post(engine.url, PATHS.heartbeat, heartbeat(TENANT, 7003));
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'TENANT_BUSY', retryAfterSeconds: 1 });
      expect(await db.dataSource.query('SELECT id FROM executors WHERE tenant_id = ?', [TENANT])).toEqual([]);
      const other = await post(engine.url, PATHS.heartbeat, heartbeat(OTHER, 7004), { id: OTHER, secret: OTHER_SECRET });
      expect(other.status).toBe(200);
    } finally {
      finish();
      await held;
    }
    // The place is free again: the first tenant is answered (its bucket still holds tokens).
    expect((await post(engine.url, PATHS.heartbeat, heartbeat(TENANT, 7003))).status).toBe(200);
  });
});

/**
 * The defaults do not get in the way of ordinary work: a burst through the real SDK — three
 * executors of one tenant, their heartbeats, log lines and batched callbacks — is never refused.
 */
describe.each(TEST_DATABASES)('a burst through the executor SDK at the default admission bounds on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  const executors: ExecutorServer[] = [];
  const retries: string[] = [];
  const RUNS = 600;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
    await seedTenant(db.dataSource);
    for (let i = 0; i < 3; i++) {
      const executor = createExecutorServer({
        tenantId: TENANT,
        secret: SECRET,
        app: 'billing',
        engineUrls: [engine.url],
        spoolFile: false,
        heartbeatIntervalMs: 200,
        progressIntervalMs: 50,
        concurrency: 16,
        queueLimit: RUNS,
        logger: false,
        handlers: [
          defineHandler('charge', async (ctx) => {
            ctx.log.info('charging');
            ctx.progress(50);
            await ctx.sleep(5 + (ctx.runId % 20));
            return { ok: true };
          }),
        ],
      });
      executor.runtime.events.on('callbackRetry', (e) => retries.push(e.error));
      executor.runtime.events.on('heartbeatFailed', (e) => retries.push(e.error));
      executors.push(executor);
      await executor.start();
    }
  });
  afterAll(async () => {
    await Promise.all(executors.map((e) => e.stop()));
    await engine?.close();
  });
  afterEach(() => expect(retries).toEqual([]));

  it(`runs ${RUNS} runs due at once to SUCCEEDED with no request refused`, async () => {
    await eventually(async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 3, 'executor registration');
    await engine.refreshRegistry();
    const task = await seedTask(db.dataSource, { name: 'charge', handler: 'charge' });
    const runIds: number[] = [];
    for (let i = 0; i < RUNS; i++) runIds.push(await seedRun(db.dataSource, task));
    engine.get(DueQueue).accept(runIds.map((id) => claimedRunOf(task, id)));
    await eventually(
      async () => {
        const [{ n }] = (await db.dataSource.query("SELECT COUNT(*) AS n FROM runs WHERE state = 'SUCCEEDED'")) as Array<{ n: number }>;
        return Number(n) === RUNS;
      },
      `${RUNS} runs SUCCEEDED`,
    );
    expect((await engine.metrics.signedRequestsRefused.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(0);
  });
});
