import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import { PATHS, type DispatchRequest, type ExecutorHeartbeat } from '@baton/protocol';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { ExecutorClient, NO_EXECUTOR_OF_TENANT } from '../executors/executor-client';
import { TenantDirectory } from '../tenants/tenant-directory';
import { FakeExecutor, NODE_ID, readRun, seedExecutor, seedRun, seedTask, seedTenant, signedPost, startDispatchSide, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';
import { EVENTUALLY_CEILING_MS } from '../testing/eventually';
import { acceptedSecrets, signingSecrets } from './executor-secrets';

const OLD = 'old-executor-secret';
const NEW = 'new-executor-secret';
/** Inside the protocol's 5-minute skew, so the fake executors (on the wall clock) still accept the engine's timestamps. */
const OVERLAP_MS = 60_000;

describe('executor secrets of a rotated tenant', () => {
  const tenant = { executorSecret: NEW, executorSecretVersion: 2, previousExecutorSecret: OLD, previousSecretExpiresAt: 1_000 };

  it('accepts the previous secret strictly before its expiry only', () => {
    expect(acceptedSecrets(tenant, 999).map((s) => s.version)).toEqual([2, 1]);
    expect(acceptedSecrets(tenant, 1_000)).toEqual([{ secret: NEW, version: 2 }]);
    expect(acceptedSecrets({ ...tenant, previousExecutorSecret: null, previousSecretExpiresAt: null }, 0)).toEqual([{ secret: NEW, version: 2 }]);
  });

  it("signs to an executor with the secret of its latest heartbeat first, then the other", () => {
    expect(signingSecrets(tenant, 1, 0).map((s) => s.secret)).toEqual([OLD, NEW]);
    expect(signingSecrets(tenant, 2, 0).map((s) => s.secret)).toEqual([NEW, OLD]);
    expect(signingSecrets(tenant, null, 0).map((s) => s.secret)).toEqual([NEW, OLD]);
    expect(signingSecrets(tenant, 1, 1_000).map((s) => s.secret)).toEqual([NEW]);
  });
});

describe.each(TEST_DATABASES)('secret rotation on every signed route, on %s', (kind) => {
  const db = useTestDatabase(kind);
  const clock = new ManualClock(Date.now());
  let t0: number;
  let engine: DispatchSideApp;
  const executors: FakeExecutor[] = [];

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, {}, { clock });
  });
  afterAll(async () => {
    await Promise.all(executors.map((e) => e.stop()));
    await engine?.close();
  });
  beforeEach(async () => {
    await db.clear();
    t0 = Math.max(Date.now(), clock.now()); // never back: the tenant cache's rows are dated by this clock
    clock.set(t0);
    await seedTenant(db.dataSource, { secret: NEW });
    // As the console's rotation leaves it: version 2 current, version 1 valid for the overlap window.
    await db.dataSource.query('UPDATE tenants SET executor_secret_version = 2, previous_executor_secret = ?, previous_secret_expires_at = ? WHERE id = ?', [OLD, t0 + OVERLAP_MS, TENANT]);
    clock.advance(10_000); // past the tenant cache's TTL: no test sees another test's tenant row
  });

  const heartbeat = (url: string): ExecutorHeartbeat => ({ tenantId: TENANT, app: 'billing', url, capacity: 4, inFlight: 0, handlers: ['charge'] });
  const post = (path: string, payload: unknown, secret: string) => signedPost(engine.url, path, payload, { secret, now: clock.now() });
  const secretVersions = async () =>
    ((await db.dataSource.query('SELECT url, secret_version FROM executors ORDER BY id')) as Array<{ url: string; secret_version: number | string | null }>).map((r) => [
      r.url,
      r.secret_version === null ? null : Number(r.secret_version),
    ]);
  const dispatchRequest = (runId: number): DispatchRequest => ({
    runId,
    attempt: 1,
    tenantId: TENANT,
    taskId: 1,
    taskName: 'charge',
    handler: 'charge',
    params: {},
    scheduledAt: clock.now(),
    deadline: clock.now() + 60_000,
    callbackUrls: [engine.url],
  });
  async function fakeExecutor(secret: string): Promise<FakeExecutor> {
    const executor = await new FakeExecutor(secret).start();
    executors.push(executor);
    return executor;
  }

  it('in the window: heartbeats, callbacks and batch callbacks signed by either secret are accepted; the heartbeat records which', async () => {
    expect((await post(PATHS.heartbeat, heartbeat('http://10.0.0.1:7070'), OLD)).status).toBe(200);
    expect((await post(PATHS.heartbeat, heartbeat('http://10.0.0.2:7070'), NEW)).status).toBe(200);
    expect(await secretVersions()).toEqual([
      ['http://10.0.0.1:7070', 1],
      ['http://10.0.0.2:7070', 2],
    ]);

    const executorId = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9' });
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const now = clock.now();
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, executorId, dispatchedAt: now, acceptedAt: now, deadlineAt: now + 60_000 });
    const progress = await post(PATHS.callback, { runId, attempt: 1, tenantId: TENANT, progress: 40 }, OLD);
    expect(progress.status).toBe(200);
    expect(await readRun(db.dataSource, runId)).toMatchObject({ progress: 40 });
    const done = { runId, attempt: 1, tenantId: TENANT, outcome: 'SUCCEEDED', startedAt: now - 10, finishedAt: now };
    const batch = await post(PATHS.callbackBatch, { callbacks: [done] }, OLD);
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ results: [{ runId, status: 200 }] });
    expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'SUCCEEDED' });
  });

  it('in the window: dispatches and aborts are signed with the secret the executor uses', async () => {
    const onOld = await fakeExecutor(OLD);
    const onNew = await fakeExecutor(NEW);
    await post(PATHS.heartbeat, heartbeat(onOld.url), OLD);
    await post(PATHS.heartbeat, heartbeat(onNew.url), NEW);
    await engine.refreshRegistry();
    const client = engine.get(ExecutorClient);
    const signing = (await engine.get(TenantDirectory).get(TENANT))!;

    expect(await client.dispatch(onOld.url, signing, dispatchRequest(1))).toMatchObject({ kind: 'ACCEPTED' });
    expect(await client.dispatch(onNew.url, signing, dispatchRequest(2))).toMatchObject({ kind: 'ACCEPTED' });
    expect(await client.abort(onOld.url, signing, { runId: 1, attempt: 1, reason: 'CANCELLED' }, 1)).toBe(202);
    expect([...onOld.requests, ...onNew.requests].map((r) => r.signatureOk)).toEqual([true, true, true]);
  });

  it('an executor restarted with the new secret since its last heartbeat: the refused dispatch is re-signed once with it', async () => {
    const restarted = await fakeExecutor(NEW);
    await post(PATHS.heartbeat, heartbeat(restarted.url), OLD); // its heartbeat from before the restart
    await engine.refreshRegistry();
    const signing = (await engine.get(TenantDirectory).get(TENANT))!;
    expect(await engine.get(ExecutorClient).dispatch(restarted.url, signing, dispatchRequest(3))).toMatchObject({ kind: 'ACCEPTED' });
    expect(restarted.dispatches.map((r) => r.signatureOk)).toEqual([false, true]);
  });

  it("an executor restarted with a new secret before the engine's cached tenant knows it: the tenant is read again (at most once a second, the dispatch waiting its turn) and the dispatch signed with the new secret", async () => {
    const directory = engine.get(TenantDirectory);
    const rotate = (secret: string, version: number, previous: string | null) =>
      db.dataSource.query('UPDATE tenants SET executor_secret = ?, executor_secret_version = ?, previous_executor_secret = ?, previous_secret_expires_at = ? WHERE id = ?', [
        secret,
        version,
        previous,
        previous ? t0 + OVERLAP_MS : null,
        TENANT,
      ]);
    await rotate(OLD, 1, null); // before the rotation
    const stale = (await directory.get(TENANT, { maxAgeMs: 0 }))!;
    clock.advance(1);
    await rotate(NEW, 2, OLD); // the console rotates: the engine's cached row is younger than its TTL
    const client = engine.get(ExecutorClient);

    const restarted = await fakeExecutor(NEW);
    expect(await client.dispatch(restarted.url, stale, dispatchRequest(5))).toMatchObject({ kind: 'ACCEPTED' });
    expect(restarted.dispatches.map((r) => r.signatureOk)).toEqual([false, true]);
    const fresh = (await directory.get(TENANT))!;
    expect(fresh.executorSecret).toBe(NEW);

    // Rotated again half a second later: the next refusal waits for the tenant's turn (a second after the last such read), then reads it.
    clock.advance(500);
    const NEWER = 'newer-executor-secret';
    await db.dataSource.query('UPDATE tenants SET executor_secret = ?, executor_secret_version = 3, previous_executor_secret = ? WHERE id = ?', [NEWER, NEW, TENANT]);
    const again = await fakeExecutor(NEWER);
    let answered = false;
    const dispatched = client.dispatch(again.url, fresh, dispatchRequest(6)).finally(() => (answered = true));
    await vi.waitFor(() => expect(again.dispatches).toHaveLength(2), { timeout: EVENTUALLY_CEILING_MS }); // refused with NEW and OLD
    expect(answered).toBe(false);
    clock.advance(500);
    expect(await dispatched).toMatchObject({ kind: 'ACCEPTED' });
    expect(again.dispatches.map((r) => r.signatureOk)).toEqual([false, false, true]);
  });

  it('after the window: the old secret gets 401 SECRET_EXPIRED everywhere, the new one works, and dispatches use only the new one', async () => {
    const onOld = await fakeExecutor(OLD);
    await post(PATHS.heartbeat, heartbeat(onOld.url), OLD);
    await engine.refreshRegistry();
    clock.set(t0 + OVERLAP_MS);

    for (const path of [PATHS.heartbeat, PATHS.callback, PATHS.callbackBatch]) {
      const refused = await post(path, path === PATHS.heartbeat ? heartbeat(onOld.url) : { runId: 1, attempt: 1, tenantId: TENANT, progress: 1 }, OLD);
      expect({ path, status: refused.status, reason: refused.body.reason }).toEqual({ path, status: 401, reason: 'SECRET_EXPIRED' });
    }
    expect(await secretVersions()).toEqual([[onOld.url, 1]]); // still on version 1: needs the new secret
    expect((await post(PATHS.heartbeat, heartbeat('http://10.0.0.3:7070'), NEW)).status).toBe(200);
    expect((await post(PATHS.heartbeat, heartbeat('http://10.0.0.4:7070'), 'a-wrong-secret')).body.reason).toBe('BAD_SIGNATURE');

    const signing = (await engine.get(TenantDirectory).get(TENANT))!;
    // Refused by every secret the tenant has: told as no executor of the tenant there, as another tenant's executor is.
    expect(await engine.get(ExecutorClient).dispatch(onOld.url, signing, dispatchRequest(4))).toEqual({ kind: 'UNAVAILABLE', status: null, message: NO_EXECUTOR_OF_TENANT });
    expect(onOld.dispatches).toHaveLength(1);
  });
});
