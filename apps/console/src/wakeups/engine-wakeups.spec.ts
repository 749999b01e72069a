import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import { EngineGroupEntity, EngineNodeEntity, TenantEntity } from '@baton/persistence';
import { MAX_WAKE_RUNS, PATHS, provesWakeRows, verify, WAKE_ROWS_HEADER, type WakeRequest } from '@baton/protocol';
import { In } from 'typeorm';
import { useTestDatabase } from '../../../../test/support/databases';
import { EngineWakeups, WAKE_HEDGE_MS } from './engine-wakeups';

const T0 = Date.UTC(2026, 10, 26);

describe('EngineWakeups', () => {
  const db = useTestDatabase('sqlite');
  const clock = new ManualClock(T0);
  const heard: Array<{ engine: string; path: string; tenant: string; body: string; signature: string; ok: boolean; headers: IncomingMessage['headers'] }> = [];
  const servers: Server[] = [];
  /** Engines that hold their answers (a frozen engine) until released. */
  const holding = new Map<string, Array<() => void>>();

  /** A stand-in engine: records each wake-up and checks its signature with the tenant's secret. */
  const engine = async (name: string): Promise<string> => {
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = String(req.url);
        const ok = (path === PATHS.wake || path === PATHS.cancelled) && verify('secret-acme', req.headers, 'POST', path, body, clock.now()).ok;
        heard.push({ engine: name, path, tenant: String(req.headers['x-baton-tenant']), body, signature: String(req.headers['x-baton-signature']), ok, headers: req.headers });
        res.statusCode = 204;
        const held = holding.get(name);
        if (held) held.push(() => res.end());
        else res.end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };
  /**
   * Its sends (one a tenant a turn: `send` for wake-ups, `notify` for a cancel notice), each of
   * which resolves once every engine has answered: what the tests wait for, not a guessed time.
   */
  const spyOn = (wakeups: EngineWakeups, method: 'send' | 'notify') => vi.spyOn(wakeups as unknown as Record<typeof method, (...args: unknown[]) => Promise<void>>, method);
  const answered = async (sends: ReturnType<typeof spyOn>) => void (await Promise.all(sends.mock.results.map((r) => r.value)));
  const node = (id: string, groups: string, url: string, heartbeatAt = T0, state = 'UP') => ({ id, groups, host: 'h', pid: 1, url, slots: 8, startedAt: T0, heartbeatAt, state });

  beforeAll(async () => {
    const ds = db.dataSource;
    await ds.getRepository(EngineGroupEntity).insert([{ name: 'default', description: '', createdAt: T0 }, { name: 'reports', description: '', createdAt: T0 }]);
    await ds.getRepository(TenantEntity).insert({ id: 'acme', name: 'Acme', engineGroup: 'default', executorSecret: 'secret-acme', createdAt: T0 });
    await ds.getRepository(EngineNodeEntity).insert([
      node('e1', 'default', await engine('e1')),
      node('e2', 'reports,default', await engine('e2')),
      node('other-group', 'reports', await engine('other-group')),
      node('silent', 'default', await engine('silent'), T0 - 60_000),
      node('down', 'default', await engine('down'), T0, 'DOWN'),
    ]);
  });
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  beforeEach(() => void heard.splice(0));

  it("wakes one live engine of the tenant's group at a time, in turn, signed, once per turn of the event loop, and two turns of the same millisecond under different signatures", async () => {
    const wakeups = new EngineWakeups(db.dataSource, clock);
    const sends = spyOn(wakeups, 'send');
    // One turn (a bulk re-run's runs, committed together): one wake-up.
    for (let i = 0; i < 50; i++) wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0 });
    await new Promise((resolve) => setImmediate(resolve));
    // The next turn, same millisecond: another wake-up, signed at a later instant so it is not a replay.
    wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toHaveBeenCalledTimes(2);
    await answered(sends);
    wakeups.onModuleDestroy();
    expect(heard.map((h) => h.engine).sort()).toEqual(['e1', 'e2']);
    expect(heard.every((h) => h.ok && h.tenant === 'acme' && JSON.parse(h.body).dueAt === T0)).toBe(true);
    expect(heard[0].signature).not.toBe(heard[1].signature);
  });

  it('wakes the other engines too when the one woken has not answered within WAKE_HEDGE_MS, and only then', async () => {
    const wakeups = new EngineWakeups(db.dataSource, clock);
    const sends = spyOn(wakeups, 'send');
    holding.set('e1', []);
    holding.set('e2', []);
    try {
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [7] });
      await vi.waitFor(() => expect(heard).toHaveLength(1), { timeout: 10_000 });
      const first = heard[0].engine;
      const other = first === 'e1' ? 'e2' : 'e1';
      clock.advance(WAKE_HEDGE_MS - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard).toHaveLength(1);
      clock.advance(1);
      await vi.waitFor(() => expect(heard.map((h) => h.engine)).toEqual([first, other]), { timeout: 10_000 });
      expect(heard[1].body).toBe(heard[0].body);
    } finally {
      for (const held of holding.values()) held.forEach((answer) => answer());
      holding.clear();
    }
    await answered(sends);
    wakeups.onModuleDestroy();
  });

  it('names the runs of one turn’s wake-ups while they fit in one request, and none past MAX_WAKE_RUNS, however many a single wake-up names', async () => {
    const wakeups = new EngineWakeups(db.dataSource, clock);
    const sends = spyOn(wakeups, 'send');
    const ids = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
    wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0 + 5, runIds: [1] });
    wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [2, 3] });
    await new Promise((resolve) => setImmediate(resolve));
    // A batch of MAX_WAKE_RUNS runs, committed alone: named, in one request.
    wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: ids(MAX_WAKE_RUNS, 100) });
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < MAX_WAKE_RUNS + 1; i++) wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [10_000 + i] });
    await new Promise((resolve) => setImmediate(resolve));
    // One wake-up naming more than a request may carry (submissions grouped into one transaction):
    // none named, not a request the engines refuse.
    wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0 + 1, runIds: ids(MAX_WAKE_RUNS + 1, 20_000) });
    await new Promise((resolve) => setImmediate(resolve));
    await answered(sends);
    wakeups.onModuleDestroy();
    const bodies = heard.map((h) => JSON.parse(h.body) as WakeRequest);
    expect(bodies).toContainEqual({ dueAt: T0, runIds: [1, 2, 3] });
    expect(bodies).toContainEqual({ dueAt: T0, runIds: ids(MAX_WAKE_RUNS, 100) });
    expect(bodies).toContainEqual({ dueAt: T0 }); // MAX_WAKE_RUNS + 1 wake-ups: the engines read the tenant's due runs instead
    expect(bodies).toContainEqual({ dueAt: T0 + 1 });
    expect(bodies.every((b) => (b.runIds?.length ?? 0) <= MAX_WAKE_RUNS)).toBe(true);
  });

  it("carries the runs' rows of a turn's wake-ups to an engine with a wake key, proved with that key, and names the runs only to one without, or when a wake-up of the turn has no rows", async () => {
    const nodes = db.dataSource.getRepository(EngineNodeEntity);
    await nodes.update({ id: 'e1' }, { wakeKey: 'key-of-e1' });
    try {
      const wakeups = new EngineWakeups(db.dataSource, clock);
      const sends = spyOn(wakeups, 'send');
      const row = (id: number) => ({ id, tenant_id: 'acme', params: `{"n":${id}}` });
      // Two turns, one engine each (in turn): the first joins two wake-ups' rows.
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [1], runs: [row(1)] });
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [2, 3], runs: [row(2), row(3)] });
      await new Promise((resolve) => setImmediate(resolve));
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [4], runs: [row(4)] });
      await new Promise((resolve) => setImmediate(resolve));
      // A turn where one wake-up has no rows (a re-run's): ids only, to whichever engine.
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [5], runs: [row(5)] });
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [6] });
      await new Promise((resolve) => setImmediate(resolve));
      await answered(sends);
      wakeups.onModuleDestroy();
      expect(heard.every((h) => h.ok)).toBe(true);
      const toE1 = heard.filter((h) => h.engine === 'e1' && (JSON.parse(h.body) as WakeRequest).runIds?.[0] !== 5);
      const toE2 = heard.filter((h) => h.engine === 'e2' && (JSON.parse(h.body) as WakeRequest).runIds?.[0] !== 5);
      expect(toE1).toHaveLength(1);
      expect(toE2).toHaveLength(1);
      const carried = JSON.parse(toE1[0].body) as WakeRequest;
      expect(carried.runs).toEqual(carried.runIds!.map(row));
      expect(provesWakeRows('key-of-e1', toE1[0].headers)).toBe(true);
      expect(provesWakeRows('another-key', toE1[0].headers)).toBe(false);
      expect(JSON.parse(toE2[0].body)).toEqual({ dueAt: T0, runIds: carried.runIds![0] === 1 ? [4] : [1, 2, 3] });
      expect(toE2[0].headers[WAKE_ROWS_HEADER]).toBeUndefined();
      expect(heard.map((h) => JSON.parse(h.body) as WakeRequest)).toContainEqual({ dueAt: T0, runIds: [5, 6] });
    } finally {
      await nodes.update({ id: 'e1' }, { wakeKey: null });
    }
  });

  it("tells every live engine of the tenant's group which sent runs were cancelled, signed, 1,000 run ids a notice at most", async () => {
    const wakeups = new EngineWakeups(db.dataSource, clock);
    const notices = spyOn(wakeups, 'notify');
    wakeups.cancelled({ tenantId: 'acme', engineGroup: 'default', runIds: Array.from({ length: 1_001 }, (_, i) => i + 1) });
    expect(notices).toHaveBeenCalledTimes(2);
    await answered(notices);
    wakeups.onModuleDestroy();
    expect(heard.map((h) => h.engine).sort()).toEqual(['e1', 'e1', 'e2', 'e2']);
    expect(heard.every((h) => h.ok && h.path === PATHS.cancelled)).toBe(true);
    expect(heard.filter((h) => h.engine === 'e1').map((h) => (JSON.parse(h.body) as { runIds: number[] }).runIds.length).sort()).toEqual([1, 1_000]);
  });

  it('never reaches the engine node it is told shares its process (exceptNodeId): neither a wake-up nor a cancel notice', async () => {
    const wakeups = new EngineWakeups(db.dataSource, clock, { exceptNodeId: 'e1' });
    const sends = spyOn(wakeups, 'send');
    const notices = spyOn(wakeups, 'notify');
    for (let turn = 0; turn < 3; turn++) {
      wakeups.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0 });
      await new Promise((resolve) => setImmediate(resolve));
    }
    wakeups.cancelled({ tenantId: 'acme', engineGroup: 'default', runIds: [1] });
    await answered(sends);
    await answered(notices);
    wakeups.onModuleDestroy();
    expect(heard.map((h) => `${h.engine} ${h.path}`).sort()).toEqual([`e2 ${PATHS.cancelled}`, `e2 ${PATHS.wake}`, `e2 ${PATHS.wake}`, `e2 ${PATHS.wake}`]);
  });

  it('reaches the live engines with a cancel notice after a quiet spell longer than an engine may stay silent: it waits for a fresh read of who is live', async () => {
    const quiet = new ManualClock(T0);
    const wakeups = new EngineWakeups(db.dataSource, quiet);
    const notices = spyOn(wakeups, 'notify');
    wakeups.cancelled({ tenantId: 'acme', engineGroup: 'default', runIds: [1] });
    await answered(notices);
    // 30 s without a wake-up or a cancel: the engines kept beating, the console did not look.
    quiet.advance(30_000);
    const nodes = db.dataSource.getRepository(EngineNodeEntity);
    await nodes.update({ id: In(['e1', 'e2']) }, { heartbeatAt: quiet.now() });
    try {
      heard.splice(0);
      wakeups.cancelled({ tenantId: 'acme', engineGroup: 'default', runIds: [2] });
      await answered(notices);
      expect(heard.map((h) => h.engine).sort()).toEqual(['e1', 'e2']);
      expect(heard.every((h) => h.ok && JSON.parse(h.body).runIds[0] === 2)).toBe(true);
    } finally {
      wakeups.onModuleDestroy();
      await nodes.update({ id: In(['e1', 'e2']) }, { heartbeatAt: T0 });
    }
  });
});
