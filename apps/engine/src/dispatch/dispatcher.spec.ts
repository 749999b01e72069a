import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { PATHS, type DispatchRequest } from '@baton/protocol';
import {
  alarms,
  claimedRunOf,
  eventually,
  FakeExecutor,
  NODE_ID,
  readRun,
  runInState,
  seedExecutor,
  seedRun,
  seedTask,
  seedTenant,
  signedPost,
  startDispatchSide,
  TENANT,
  type DispatchSideApp,
} from '../testing/dispatch-side-kit';
import { EVENTUALLY_CEILING_MS } from '../testing/eventually';
import { ExecutorClient, NO_EXECUTOR_OF_TENANT } from '../executors/executor-client';
import { TenantDirectory } from '../tenants/tenant-directory';
import { DispatchMarks } from '../runs/dispatch-marks';
import { DispatchSetbacks } from '../runs/dispatch-setbacks';
import { DispatchAdmission } from './dispatch-admission';
import { Dispatcher } from './dispatcher';
import { HeldAttempts } from '../runs/held-attempts';
import { DueQueue } from './due-queue';
import { TenantPace } from '../claimer/tenant-pace';

describe.each(TEST_DATABASES)('dispatcher on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let a: FakeExecutor;
  let b: FakeExecutor;
  let queue: DueQueue;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
    queue = engine.get(DueQueue);
    a = await new FakeExecutor().start();
    b = await new FakeExecutor().start();
  });
  afterAll(async () => {
    await engine?.close();
    await a?.stop();
    await b?.stop();
  });
  beforeEach(async () => {
    await db.clear();
    a.reset();
    b.reset();
    engine.metrics.runsFired.reset();
    engine.metrics.dispatchFailures.reset();
    await seedTenant(db.dataSource);
  });

  async function oneExecutor(): Promise<number> {
    const id = await seedExecutor(db.dataSource, { url: a.url });
    await engine.refreshRegistry();
    return id;
  }

  async function twoExecutors(): Promise<[number, number]> {
    const ida = await seedExecutor(db.dataSource, { url: a.url });
    const idb = await seedExecutor(db.dataSource, { url: b.url });
    await engine.refreshRegistry();
    return [ida, idb];
  }

  it('keeps a run whose dispatch failed while the database was unreachable, and sends it once it answers again', async () => {
    await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { state: 'CLAIMED' });
    const down = new Error('connect ECONNREFUSED (database restarting)');
    const mark = vi.spyOn(engine.get(DispatchMarks), 'markDispatched').mockRejectedValueOnce(down);
    const defer = vi.spyOn(engine.get(DispatchSetbacks), 'defer').mockRejectedValueOnce(down);
    try {
      queue.accept([claimedRunOf(task, runId)]);
      await eventually(async () => defer.mock.calls.length === 1, 'the failed dispatch tried to put the run back');
      expect(queue.held).toBe(1); // kept in memory, not dropped
      expect(queue.holds(runId)).toBe(true); // not a stray for the lease renewals to give back
      await runInState(db.dataSource, runId, 'ACCEPTED');
      expect(a.dispatches).toHaveLength(1);
    } finally {
      mark.mockRestore();
      defer.mockRestore();
    }
  });

  it('202 → ACCEPTED: signed DispatchRequest, executor and timestamps recorded, slot freed', async () => {
    const executorId = await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'charge', timeoutMs: 30_000 });
    const scheduledAt = Date.now() - 3;
    const runId = await seedRun(db.dataSource, task, { scheduledAt });
    queue.accept([claimedRunOf(task, runId, { scheduledAt, dueAt: scheduledAt })]);

    const run = await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(run.executorId).toBe(executorId);
    expect(run.dispatchedAt).not.toBeNull();
    expect(run.acceptedAt).toBeGreaterThanOrEqual(run.dispatchedAt!);
    expect(run.deadlineAt).toBe(run.acceptedAt! + 30_000);
    expect(run.attempt).toBe(1);

    expect(a.dispatches).toHaveLength(1);
    const sent = a.dispatches[0];
    expect(sent.signatureOk).toBe(true);
    const body = sent.body as unknown as DispatchRequest;
    expect(body).toMatchObject({ runId, attempt: 1, tenantId: TENANT, taskId: task.id, taskName: 'charge', handler: 'charge', params: { amount: 5 }, scheduledAt });
    expect(body.deadline).toBe(run.dispatchedAt! + 30_000);
    // dispatchedAt is when the request left: after the DISPATCHED mark, before the executor had it.
    expect(run.dispatchedAt).toBeLessThanOrEqual(sent.at);
    expect(body.callbackUrls[0]).toBe(engine.url);
    await eventually(async () => engine.get(Dispatcher).slotsInUse === 0, 'slot released');
    // In the dispatcher's hands until its ACCEPTED mark is written, then in nobody's: the executor has it.
    await eventually(async () => !queue.holds(runId), 'the run let go once its ACCEPTED mark was written');
    expect((await engine.metrics.runsFired.get()).values[0].value).toBe(1);
    expect((await engine.metrics.lateness.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value).toBeGreaterThan(0);
  });

  it('measures lateness from the run’s admission when its own keys held it back, not from its instant', async () => {
    await oneExecutor();
    engine.metrics.lateness.reset();
    const task = await seedTask(db.dataSource, { name: 'rated', timeoutMs: 30_000 });
    const runId = await seedRun(db.dataSource, task);
    // Its instant a minute back, its admission past any dispatch of it: measured from the admission,
    // the one observation is exactly 0; measured from the instant it would be a minute or more.
    const instant = claimedRunOf(task, runId).instant - 60_000;
    queue.accept([claimedRunOf(task, runId, { scheduledAt: instant, instant, dueAt: instant, lateFrom: Number.MAX_SAFE_INTEGER })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const values = (await engine.metrics.lateness.get()).values;
    expect(values.find((v) => v.metricName?.endsWith('_count'))?.value).toBe(1);
    expect(values.find((v) => v.metricName?.endsWith('_sum'))?.value).toBe(0);
  });

  it('the on-time lane: a run due alone is marked DISPATCHED as sent at its instant, and sent at it, never before', async () => {
    await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'lone' });
    const due = Date.now() + 1_000; // far enough ahead for a loaded CI machine to start it ahead, as the lane does
    const runId = await seedRun(db.dataSource, task, { scheduledAt: due });
    const marks = engine.get(DispatchMarks);
    const mark = marks.markDispatched.bind(marks);
    const calls: Array<{ onTime: boolean; sendAt?: number; written: number | null; returnedAt: number }> = [];
    const spy = vi.spyOn(marks, 'markDispatched').mockImplementation(async (run, executorId, onTime, sendAt) => {
      const written = await mark(run, executorId, onTime, sendAt);
      calls.push({ onTime: onTime ?? false, sendAt, written, returnedAt: Date.now() });
      return written;
    });
    try {
      queue.accept([claimedRunOf(task, runId, { scheduledAt: due, dueAt: due })]);
      const run = await runInState(db.dataSource, runId, 'ACCEPTED');
      expect(calls).toEqual([{ onTime: true, sendAt: due, written: expect.any(Number), returnedAt: expect.any(Number) }]);
      // Marked ahead of its instant, its row says it was sent at the instant, not when it was
      // marked; marked after it (a machine too loaded for the lane's lead), when it was marked.
      const [{ written, returnedAt }] = calls;
      if (returnedAt < due) expect(written).toBe(due);
      else {
        expect(written).toBeGreaterThanOrEqual(due);
        expect(written).toBeLessThanOrEqual(returnedAt);
      }
      expect(a.dispatches).toHaveLength(1);
      expect(a.dispatches[0].at).toBeGreaterThanOrEqual(due);
      expect(run.dispatchedAt).toBeGreaterThanOrEqual(due); // the ACCEPTED mark: when the request left
    } finally {
      spy.mockRestore();
    }
  });

  it('429 → the next executor takes it (executor_id follows)', async () => {
    const [, idb] = await twoExecutors();
    a.answer(429, { accepted: false, reason: 'BUSY', message: 'pool full' });
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);

    const run = await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(a.dispatches).toHaveLength(1);
    expect(b.dispatches).toHaveLength(1);
    expect(run.executorId).toBe(idb);
    // What was sent is held for the callback, with the executor that took it.
    expect(engine.get(HeldAttempts).take({ runId, attempt: 1, tenantId: TENANT, executorId: idb })).toMatchObject({ runId, executorId: idb, state: 'ACCEPTED' });
    const failures = (await engine.metrics.dispatchFailures.get()).values;
    expect(failures.find((v) => v.labels.reason === 'BUSY')?.value).toBe(1);
  });

  it('all executors busy or failing → RETRY_WAIT after the dispatch backoff, same attempt, lease released, no alarm', async () => {
    await twoExecutors();
    a.answer(429, { accepted: false, reason: 'BUSY', message: 'pool full' });
    b.answer(503, { accepted: false, reason: 'SHUTTING_DOWN', message: 'draining' });
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 1 });
    const runId = await seedRun(db.dataSource, task);
    const before = Date.now();
    queue.accept([claimedRunOf(task, runId)]);

    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.attempt).toBe(1); // a dispatch failure spends no attempt
    expect(run.claimedBy).toBeNull();
    expect(run.executorId).toBeNull();
    expect(run.dueAt).toBeGreaterThan(before);
    expect(run.error).toMatch(/Dispatch deferred/);
    expect(await alarms(db.dataSource)).toEqual([]);
  });

  it('every executor busy (429) → kept in hand (CLAIMED again, never RETRY_WAIT), held back, and sent when one has room', async () => {
    await twoExecutors();
    // The row as keepInHand left it, read before it returns: the dispatcher holds the run again (and the gate's probe
    // may send it at once) only after that, so a read after the spy's call raced the re-send.
    const kept: Array<Awaited<ReturnType<typeof readRun>>> = [];
    const keepInHand = DispatchSetbacks.prototype.keepInHand;
    const spy = vi.spyOn(DispatchSetbacks.prototype, 'keepInHand').mockImplementation(async function (this: DispatchSetbacks, run) {
      const written = await keepInHand.call(this, run);
      kept.push(await readRun(db.dataSource, run.runId));
      return written;
    });
    let busy = true;
    for (const e of [a, b]) {
      const accept = e.behaviour;
      e.behaviour = (req) => (busy ? { status: 429, body: { accepted: false, reason: 'BUSY', message: 'pool full' } } : accept(req));
    }
    try {
      const task = await seedTask(db.dataSource, { name: 'charge' });
      const runId = await seedRun(db.dataSource, task);
      queue.accept([claimedRunOf(task, runId)]);
      await vi.waitFor(() => expect(kept).toHaveLength(1), { timeout: EVENTUALLY_CEILING_MS });
      expect(await spy.mock.results[0].value).toBe(true); // written: DISPATCHED → CLAIMED
      expect([kept[0].state, kept[0].claimedBy, kept[0].executorId, kept[0].attempt]).toEqual(['CLAIMED', NODE_ID, null, 1]);
      busy = false; // room again: the gate's probe sends it
      const run = await runInState(db.dataSource, runId, 'ACCEPTED');
      expect([kept.map((k) => k.state), run.attempt, run.error]).toEqual([kept.map(() => 'CLAIMED'), 1, null]);
      expect(a.dispatches.length + b.dispatches.length).toBeGreaterThanOrEqual(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('no answer (timeout) → the same executor is asked again, never another: no second execution elsewhere', async () => {
    const [ida] = await twoExecutors();
    let calls = 0;
    const accepted = a.behaviour;
    // The first request outlives the engine's dispatch timeout (2 s here); the repeat is answered.
    a.behaviour = (req) => (++calls === 1 ? { status: 202, delayMs: 2_500 } : accepted(req));
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);

    const run = await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(run.executorId).toBe(ida);
    expect(a.dispatches).toHaveLength(2);
    expect(b.dispatches).toHaveLength(0);
  });

  it('still no answer → deferred with the run pointing at that executor, not handed to another', async () => {
    const [ida] = await twoExecutors();
    a.behaviour = () => ({ status: 202, delayMs: 2_500 });
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);

    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.executorId).toBe(ida);
    expect(run.attempt).toBe(1);
    expect(b.dispatches).toHaveLength(0);
  });

  it('no executor UP → RETRY_WAIT, nothing sent', async () => {
    await seedExecutor(db.dataSource, { url: a.url, state: 'DOWN' });
    await engine.refreshRegistry();
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);
    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.attempt).toBe(1);
    expect(run.error).toMatch(/no executor of app "billing" is UP/);
    expect(a.requests).toHaveLength(0);
  });

  // Issue 12 item 11: the operator narrowed the tenant's executor networks after its executors registered.
  it("an UP executor outside the tenant's executor networks gets nothing: RETRY_WAIT saying why; no abort goes there either", async () => {
    const zoned = 'zoned'; // a tenant of its own: the engine caches tenants for a few seconds across tests
    await seedTenant(db.dataSource, { id: zoned, secret: 'zoned-secret', executorNetworks: ['10.0.0.0/8'] });
    await seedExecutor(db.dataSource, { url: a.url, tenantId: zoned });
    await engine.refreshRegistry();
    const task = await seedTask(db.dataSource, { name: 'charge', tenantId: zoned });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);
    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.error).toMatch(/no executor of app "billing" is UP at a URL the tenant's executor networks allow/);
    const tenant = await engine.get(TenantDirectory).get(zoned);
    expect(await engine.get(ExecutorClient).abort(a.url, tenant!, { runId, attempt: 1, reason: 'CANCELLED' }, 1)).toBeNull();
    expect(a.requests).toHaveLength(0);
  });

  it('404 unknown handler from every executor → FAILED + DISPATCH_REJECTED (one alarm)', async () => {
    await oneExecutor();
    a.answer(404, { accepted: false, reason: 'UNKNOWN_HANDLER', message: 'no handler "charge"' });
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 1 });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);

    const run = await runInState(db.dataSource, runId, 'FAILED');
    expect(run.error).toMatch(/UNKNOWN_HANDLER/);
    expect(run.finishedAt).not.toBeNull();
    const all = await alarms(db.dataSource);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ type: 'DISPATCH_REJECTED', severity: 'CRITICAL', runId, taskId: task.id, publishedAt: null });
  });

  it('a rejection with attempts left is a failed attempt: RETRY_WAIT as attempt 2', async () => {
    await oneExecutor();
    a.answer(404, { accepted: false, reason: 'UNKNOWN_HANDLER', message: 'no handler' });
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 3 });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId, { retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60_000, jitter: 0 } })]);
    const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
    expect(run.attempt).toBe(2);
    expect((await alarms(db.dataSource)).map((x) => [x.type, x.severity])).toEqual([['DISPATCH_REJECTED', 'WARNING']]);
  });

  it('a run taken over by another node (claimed_by changed) is not sent', async () => {
    await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { claimedBy: 'someone-else' });
    queue.accept([claimedRunOf(task, runId)]);
    // The attempt is over (its slot given back, nothing held): it decided not to send.
    await eventually(async () => engine.get(Dispatcher).slotsInUse === 0 && queue.held === 0, 'dispatch attempt');
    expect(a.requests).toHaveLength(0);
    expect((await readRun(db.dataSource, runId)).state).toBe('CLAIMED');
  });

  it('a run taken unclaimed that a peer claimed before its mark is not sent, and the loss is kept for the claimer (TenantPace)', async () => {
    await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { claimedBy: 'someone-else' });
    const pace = engine.get(TenantPace);
    const since = Date.now();
    queue.accept([{ ...claimedRunOf(task, runId), unclaimed: true }]);
    await eventually(async () => engine.get(Dispatcher).slotsInUse === 0 && queue.held === 0, 'dispatch attempt');
    expect(a.requests).toHaveLength(0);
    expect(pace.lostUnclaimedSince(TENANT, since)).toBe(true);
  });

  it('a re-dispatch after takeover goes to the executor on the run first', async () => {
    const [, idb] = await twoExecutors(); // FAILOVER would pick a first
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { executorId: idb });
    queue.accept([claimedRunOf(task, runId, { executorId: idb })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(b.dispatches).toHaveLength(1);
    expect(a.dispatches).toHaveLength(0);
  });

  it('concurrency FORBID: another run executing → this one SKIPPED, nothing sent', async () => {
    const executorId = await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'exclusive', concurrencyPolicy: 'FORBID' });
    const running = await seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, executorId, dispatchedAt: Date.now(), acceptedAt: Date.now() });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);
    const run = await runInState(db.dataSource, runId, 'SKIPPED');
    expect(run.error).toMatch(new RegExp(`run ${running} .*FORBID`));
    expect(run.claimedBy).toBeNull();
    expect(a.requests).toHaveLength(0);
    expect((await readRun(db.dataSource, running)).state).toBe('ACCEPTED');
  });

  it('concurrency FORBID with nothing else executing dispatches normally', async () => {
    await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'exclusive', concurrencyPolicy: 'FORBID' });
    await seedRun(db.dataSource, task, { state: 'SUCCEEDED', claimedBy: null });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
  });

  it('concurrency REPLACE: the executing run is CANCELLED and its executor asked to abort; this one runs', async () => {
    const executorId = await oneExecutor();
    const task = await seedTask(db.dataSource, { name: 'latest', concurrencyPolicy: 'REPLACE' });
    const old = await seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, executorId, attempt: 2, dispatchedAt: Date.now(), acceptedAt: Date.now() });
    const runId = await seedRun(db.dataSource, task);
    queue.accept([claimedRunOf(task, runId)]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const cancelled = await readRun(db.dataSource, old);
    expect(cancelled.state).toBe('CANCELLED');
    expect(cancelled.error).toMatch(/REPLACE/);
    const abort = await eventually(async () => a.aborts[0], 'abort request');
    expect(abort.path).toBe(`/baton/runs/${old}/abort`);
    expect(abort.signatureOk).toBe(true);
    expect(abort.body).toEqual({ runId: old, attempt: 2, reason: 'REPLACED' });
  });

  it('paces a tenant by its token bucket (rate 5/s, burst 1): runs due together go out ~200 ms apart', async () => {
    // A tenant this app has not seen yet: its quota is read (prefetched on accept) before the due time.
    const tenantId = `slow-${kind}`;
    await seedTenant(db.dataSource, { id: tenantId, ratePerSec: 5, burst: 1 });
    await seedExecutor(db.dataSource, { url: a.url, tenantId });
    await engine.refreshRegistry();
    const task = await seedTask(db.dataSource, { name: 'paced', tenantId });
    const runs = [await seedRun(db.dataSource, task), await seedRun(db.dataSource, task), await seedRun(db.dataSource, task)];
    // The instants the bucket let each run go, on the engine's clock: what it paces. (Those measured
    // where the requests arrive, or where they are signed, shrink when a loaded machine delays one
    // more than the next.)
    const grantedAt = new Map<number, number>();
    const takeTokens = DispatchAdmission.prototype.takeTokens;
    const granting = vi.spyOn(DispatchAdmission.prototype, 'takeTokens').mockImplementation(function (this: DispatchAdmission, run, now, ahead) {
      const wait = takeTokens.call(this, run, now, ahead);
      if (wait === 0 && run.tenantId === tenantId) grantedAt.set(run.runId, now);
      return wait;
    });
    try {
      const due = Date.now();
      queue.accept(runs.map((id) => claimedRunOf(task, id, { dueAt: due + 100, scheduledAt: due + 100 })));
      for (const id of runs) await runInState(db.dataSource, id, 'ACCEPTED');
    } finally {
      granting.mockRestore();
    }
    const at = runs.map((id) => grantedAt.get(id)!).sort((x, y) => x - y);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(150);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(150);
  });

  it("tells no port apart: a closed one, a server that is not HTTP, an HTTP server that is not a Baton executor (an error, or a 2xx without an ack), another tenant's executor (401) leave the run one error and state, nothing of their answers", async () => {
    const stranger = await new FakeExecutor('not-the-secret').start();
    const notHttp = createServer((socket) => socket.end('5.5.5-10.11.6-MariaDB\0mysql_native_password\0')); // a database's greeting
    const notBaton = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' }).end('<pre>Cannot POST /baton/runs</pre>');
    });
    // Any POST answered 200: taken for accepted, its run waited for a callback until its timeout.
    const notBatonOk = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome to nginx!</h1>');
    });
    const closed = createServer();
    const listen = async (server: NetServer) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const urls = { closed: await listen(closed), notHttp: await listen(notHttp), notBaton: await listen(notBaton), notBatonOk: await listen(notBatonOk), otherTenant: stranger.url };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      const told: Record<string, string> = {};
      for (const [what, url] of Object.entries(urls)) {
        await db.clear();
        await seedTenant(db.dataSource);
        await seedExecutor(db.dataSource, { url });
        await engine.refreshRegistry();
        const task = await seedTask(db.dataSource, { name: `charge-${what}` });
        const runId = await seedRun(db.dataSource, task);
        queue.accept([claimedRunOf(task, runId)]);
        const run = await runInState(db.dataSource, runId, 'RETRY_WAIT');
        told[what] = run.error!.replace(url, '<executor URL>').replace(/deferred by \d+ ms/, 'deferred by (its jittered backoff)');
      }
      expect(stranger.dispatches[0].signatureOk).toBe(false);
      expect(new Set(Object.values(told)).size, JSON.stringify(told)).toBe(1);
      expect(told.closed).toContain(NO_EXECUTOR_OF_TENANT);
      expect(told.closed).not.toMatch(/HPE_|ECONN|Cannot POST|MariaDB|nginx|bad signature|UNAUTHORIZED|40[14]/);
    } finally {
      await stranger.stop();
      notHttp.close();
      notBaton.close();
      notBatonOk.close();
    }
  });

  it('synchronous dispatch (bench baseline) holds the slot until the outcome callback arrives', async () => {
    const sync = await startDispatchSide(db.dataSource, { synchronousDispatch: true });
    try {
      await seedExecutor(db.dataSource, { url: a.url });
      await sync.refreshRegistry();
      const task = await seedTask(db.dataSource, { name: 'charge' });
      const runId = await seedRun(db.dataSource, task);
      sync.get(DueQueue).accept([claimedRunOf(task, runId)]);
      // The ACCEPTED mark is written after the ack, once the send has returned: released at the
      // ack, the slot would be free by the time the mark is read back.
      await runInState(db.dataSource, runId, 'ACCEPTED');
      expect(sync.get(Dispatcher).slotsInUse).toBe(1);
      const res = await signedPost(sync.url, PATHS.callback, { runId, attempt: 1, tenantId: TENANT, outcome: 'SUCCEEDED' });
      expect(res.status).toBe(200);
      await eventually(async () => sync.get(Dispatcher).slotsInUse === 0, 'slot released by the callback');
    } finally {
      await sync.close();
    }
  });
});
