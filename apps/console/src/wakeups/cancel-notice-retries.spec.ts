import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { ManualClock } from '@baton/domain';
import { EngineGroupEntity, EngineNodeEntity, TenantEntity } from '@baton/persistence';
import { PATHS, verify } from '@baton/protocol';
import { useTestDatabase } from '../../../../test/support/databases';
import { MAX_RETRY_AFTER_MS, MAX_WAITING_NOTICES_PER_TENANT, MIN_RETRY_AFTER_MS, nextAfter, NOTICE_GIVE_UP_MS } from './cancel-notice-retries';
import { EngineWakeups } from './engine-wakeups';

const T0 = Date.UTC(2026, 10, 26);

describe('nextAfter: what follows an engine’s answer to a cancel notice', () => {
  it("waits a 429's Retry-After, within 50 ms – 5 s; seconds or an HTTP date", () => {
    const busy = (retryAfter?: string) => nextAfter({ status: 429, body: '', retryAfter }, 1, T0, 0);
    expect(busy('1')).toEqual({ kind: 'again', inMs: 1_000 });
    expect(busy('0')).toEqual({ kind: 'again', inMs: MIN_RETRY_AFTER_MS });
    expect(busy('3600')).toEqual({ kind: 'again', inMs: MAX_RETRY_AFTER_MS });
    expect(busy(new Date(T0 + 2_000).toUTCString())).toEqual({ kind: 'again', inMs: 2_000 });
    expect(busy()).toEqual({ kind: 'again', inMs: 100 });
  });

  it('sends again after no answer or a 5xx, backing off from 100 ms to 2 s; takes a 204; refuses the other statuses for good', () => {
    const unreachable = { failure: 'UNREACHABLE', code: 'ECONNREFUSED', message: 'could not connect', notSent: true } as const;
    expect([1, 2, 3, 6, 20].map((attempt) => nextAfter(unreachable, attempt, T0, 0))).toEqual([100, 200, 400, 2_000, 2_000].map((inMs) => ({ kind: 'again', inMs })));
    for (const status of [500, 502, 503, 504]) expect(nextAfter({ status, body: '' }, 1, T0, 0)).toEqual({ kind: 'again', inMs: 100 });
    expect(nextAfter({ status: 204, body: '' }, 1, T0)).toEqual({ kind: 'delivered' });
    for (const status of [400, 401, 403, 404, 409]) expect(nextAfter({ status, body: '' }, 1, T0)).toEqual({ kind: 'refused' });
  });
});

/**
 * EngineWakeups.cancelled against stand-in engines on real sockets that answer from a script.
 * The console's clock is a ManualClock: it signs, it says when a notice is given up, and the
 * waits before sending again are its timers, so each test moves time to the instant it checks.
 */
describe('EngineWakeups: cancel notices an engine did not take are sent to it again', () => {
  const db = useTestDatabase('sqlite');
  const servers: Server[] = [];
  let clock: ManualClock;
  let wakeups: EngineWakeups;
  let warn: MockInstance;
  let tenants = 0;

  interface Heard {
    at: number;
    body: string;
    signature: string;
    ok: boolean;
  }
  interface StandIn {
    url: string;
    heard: Heard[];
    /** Answers for the next notices, in order; a 204 once they run out (or always `then`). */
    script: Array<{ status: number; retryAfter?: string }>;
    then?: { status: number; retryAfter?: string };
  }

  /** A stand-in engine on `port` (0: any): records each notice, checked with the tenant's secret against the console's clock. */
  const standIn = async (secret: string, port = 0): Promise<StandIn> => {
    const engine: StandIn = { url: '', heard: [], script: [] };
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const ok = req.url === PATHS.cancelled && verify(secret, req.headers, 'POST', PATHS.cancelled, body, clock.now()).ok;
        engine.heard.push({ at: clock.now(), body, signature: String(req.headers['x-baton-signature']), ok });
        const answer = engine.script.shift() ?? engine.then ?? { status: 204 };
        res.writeHead(answer.status, answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter }).end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    engine.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return engine;
  };

  /** A new tenant, in a group of its own. */
  const newTenant = () => {
    const n = ++tenants;
    return { tenantId: `t${n}`, engineGroup: `g${n}`, secret: `secret-${n}` };
  };

  /** The tenant and its group in the database, with these engines (heartbeat now, or `heartbeatAt`), `${tenantId}-e${i}`. */
  const register = async (to: ReturnType<typeof newTenant>, ...engines: Array<{ url: string; heartbeatAt?: number }>): Promise<void> => {
    const ds = db.dataSource;
    await ds.getRepository(EngineGroupEntity).insert({ name: to.engineGroup, description: '', createdAt: T0 });
    await ds.getRepository(TenantEntity).insert({ id: to.tenantId, name: to.tenantId, engineGroup: to.engineGroup, executorSecret: to.secret, createdAt: T0 });
    await ds
      .getRepository(EngineNodeEntity)
      .insert(engines.map((e, i) => ({ id: `${to.tenantId}-e${i}`, groups: to.engineGroup, host: 'h', pid: 1, url: e.url, slots: 8, startedAt: T0, heartbeatAt: e.heartbeatAt ?? T0, state: 'UP' })));
  };

  /** A port nothing listens on (for now). */
  const freePort = async (): Promise<number> => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  };

  /** The condition decides; the timeout only bounds a hang (vi.waitFor's default, 1 s, is a guess a loaded machine can miss). */
  const SLOW_MACHINE = { timeout: 10_000 };
  /** Its private steps, spied on: `follow` takes each engine's answer, `resend` sends a notice again. */
  const spyOn = (method: 'follow' | 'resend') => vi.spyOn(wakeups as unknown as Record<typeof method, (...args: unknown[]) => unknown>, method);
  /** Waits until `n` answers have been taken (and what follows them decided: a timer set, or not). */
  const answersTaken = (follows: MockInstance, n: number) => vi.waitFor(() => expect(follows).toHaveBeenCalledTimes(n), SLOW_MACHINE);
  const runIds = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  const warned = (...parts: string[]) => warn.mock.calls.map((c) => String(c[0])).filter((line) => parts.every((p) => line.includes(p)));

  beforeEach(() => {
    clock = new ManualClock(T0);
    wakeups = new EngineWakeups(db.dataSource, clock);
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    vi.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => {
    wakeups.onModuleDestroy();
    vi.restoreAllMocks();
  });
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it("sends a notice refused with 429 again to that engine only, not before its Retry-After (1 s, then 0: the 50 ms floor), signed anew each time", async () => {
    const to = newTenant();
    const [busy, taking] = [await standIn(to.secret), await standIn(to.secret)];
    busy.script.push({ status: 429, retryAfter: '1' }, { status: 429, retryAfter: '0' });
    await register(to, busy, taking);
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(3) });
    await answersTaken(follows, 2);
    expect(clock.pendingTimers).toBe(1); // busy's notice waits its Retry-After
    clock.advance(999);
    expect(clock.pendingTimers).toBe(1); // not before it
    clock.advance(1);
    await answersTaken(follows, 3);
    clock.advance(MIN_RETRY_AFTER_MS - 1);
    expect(busy.heard).toHaveLength(2);
    clock.advance(1);
    await answersTaken(follows, 4);
    const [first, second, third] = busy.heard;
    expect(second.at - first.at).toBe(1_000);
    expect(third.at - second.at).toBe(MIN_RETRY_AFTER_MS);
    expect(busy.heard.every((h) => h.ok && JSON.parse(h.body).runIds.length === 3)).toBe(true);
    expect(new Set(busy.heard.map((h) => h.signature)).size).toBe(3);
    expect(taking.heard).toHaveLength(1);
    expect(busy.heard).toHaveLength(3);
    expect(clock.pendingTimers).toBe(0); // taken: nothing waits to be sent again
  });

  it('does not send again a notice refused with 400 (warned about), while the 503 of another engine is', async () => {
    const to = newTenant();
    const [refusing, restarting] = [await standIn(to.secret), await standIn(to.secret)];
    refusing.script.push({ status: 400 });
    restarting.script.push({ status: 503 });
    await register(to, refusing, restarting);
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(2) });
    await answersTaken(follows, 2);
    expect(clock.pendingTimers).toBe(1); // the 503's notice only
    clock.advance(100);
    await answersTaken(follows, 3);
    expect(clock.pendingTimers).toBe(0);
    expect(refusing.heard).toHaveLength(1);
    expect(warned(`${to.tenantId}-e0 refused ${PATHS.cancelled}: HTTP 400`)).toHaveLength(1);
    expect(restarting.heard).toHaveLength(2);
  });

  it('delivers a notice to an engine that refused the connection, once it listens', async () => {
    const to = newTenant();
    const port = await freePort();
    await register(to, { url: `http://127.0.0.1:${port}` });
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(4) });
    await answersTaken(follows, 1); // refused: sent again in 100 ms
    expect(clock.pendingTimers).toBe(1);
    const up = await standIn(to.secret, port);
    clock.advance(100);
    await answersTaken(follows, 2);
    expect(up.heard).toHaveLength(1);
    expect(up.heard[0].ok).toBe(true);
    expect(JSON.parse(up.heard[0].body).runIds).toEqual([1, 2, 3, 4]);
  });

  it(`gives a notice up ${NOTICE_GIVE_UP_MS / 1000} s after its first sending, naming the tenant and the run ids not delivered`, async () => {
    const to = newTenant();
    const busy = await standIn(to.secret);
    busy.then = { status: 429, retryAfter: '0' };
    await register(to, { url: busy.url, heartbeatAt: T0 + 2 * NOTICE_GIVE_UP_MS });
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(3) });
    await answersTaken(follows, 1);
    clock.advance(MIN_RETRY_AFTER_MS);
    await answersTaken(follows, 2);
    expect(busy.heard).toHaveLength(2);
    clock.advance(NOTICE_GIVE_UP_MS); // the waiting notice goes at the start of it; its answer comes when the time is up
    await answersTaken(follows, 3);
    expect(warned(`tenant ${to.tenantId}`, 'given up', `not taken in ${NOTICE_GIVE_UP_MS / 1000} s`, '3 run ids not delivered')).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0); // not sent again
    expect(busy.heard).toHaveLength(3);
  });

  it('gives a notice up when its engine leaves the live engines', async () => {
    const to = newTenant();
    const busy = await standIn(to.secret);
    busy.then = { status: 429, retryAfter: '0' };
    await register(to, busy);
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(5) });
    await answersTaken(follows, 1);
    await db.dataSource.getRepository(EngineNodeEntity).update({ id: `${to.tenantId}-e0` }, { state: 'DOWN' });
    clock.advance(2_000); // past the console's re-read of the live engines; the waiting notice goes at the start of it
    // Sent again every 50 ms (the clock's) while the console still knows the engine as live, until its re-read says otherwise.
    await vi.waitFor(() => {
      if (clock.pendingTimers > 0) clock.advance(MIN_RETRY_AFTER_MS);
      expect(warned(`tenant ${to.tenantId}`, 'given up', 'no longer live', '5 run ids not delivered')).toHaveLength(1);
    }, SLOW_MACHINE);
    expect(clock.pendingTimers).toBe(0); // not sent again
  });

  it('sends nothing again once destroyed', async () => {
    const to = newTenant();
    const busy = await standIn(to.secret);
    busy.then = { status: 429, retryAfter: '0' };
    await register(to, busy);
    const follows = spyOn('follow');
    const resends = spyOn('resend');
    wakeups.cancelled({ ...to, runIds: runIds(1) });
    await answersTaken(follows, 1);
    clock.advance(MIN_RETRY_AFTER_MS); // a notice on the wire when destroyed
    expect(resends).toHaveBeenCalledTimes(1);
    wakeups.onModuleDestroy();
    await Promise.allSettled(resends.mock.results.map((r) => r.value)); // answered (or cut), and not sent again:
    expect(clock.pendingTimers).toBe(0);
  });

  it(`keeps at most ${MAX_WAITING_NOTICES_PER_TENANT} of a tenant's notices waiting, giving the oldest up`, async () => {
    const to = newTenant();
    const busy = await standIn(to.secret);
    const notices = MAX_WAITING_NOTICES_PER_TENANT + 1;
    busy.script.push(...Array.from({ length: notices }, () => ({ status: 429, retryAfter: '1' })));
    await register(to, busy);
    const follows = spyOn('follow');
    wakeups.cancelled({ ...to, runIds: runIds(notices * 1_000) });
    await answersTaken(follows, notices);
    expect(warned(`tenant ${to.tenantId}`, 'given up', `more than ${MAX_WAITING_NOTICES_PER_TENANT}`, '1000 run ids not delivered')).toHaveLength(1);
    expect(clock.pendingTimers).toBe(MAX_WAITING_NOTICES_PER_TENANT);
    clock.advance(1_000);
    await answersTaken(follows, notices + MAX_WAITING_NOTICES_PER_TENANT);
    expect(busy.heard).toHaveLength(notices + MAX_WAITING_NOTICES_PER_TENANT);
    const resent = busy.heard.slice(notices).map((h) => (JSON.parse(h.body) as { runIds: number[] }).runIds[0]);
    expect(new Set(resent).size).toBe(MAX_WAITING_NOTICES_PER_TENANT);
    expect(clock.pendingTimers).toBe(0);
  });
});
