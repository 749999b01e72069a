import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '@baton/domain';
import { AlarmEntity, EngineNodeEntity, openDatabase, registerEngineNode, RunEntity } from '@baton/persistence';
import type { DataSource } from 'typeorm';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { claimSide, insertRun, insertTask, insertUpExecutor, runsOf, T0, testConfig } from '../../testing/engine-test-kit';

const DEAD_AFTER = 8000;

/** A node row as an engine that then died would have left it: UP, last heartbeat at `heartbeatAt`. */
async function deadNode(ds: DataSource, id: string, heartbeatAt = T0): Promise<void> {
  await registerEngineNode(ds.manager, { id, groups: ['default'], host: 'elsewhere', pid: 1, url: `http://${id}`, slots: 8, startedAt: heartbeatAt, heartbeatAt });
}

const run = (ds: DataSource, id: number) => ds.getRepository(RunEntity).findOneByOrFail({ id });

describe.each(TEST_DATABASES)('takeover on %s', (kind) => {
  const db = useTestDatabase(kind);
  let clock: ManualClock;
  let task: number;
  beforeEach(async () => {
    await db.clear();
    clock = new ManualClock(T0);
    task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfireThresholdMs: 60_000 });
  });
  const survivor = (nodeId = 'engine-a') => claimSide(db.dataSource, testConfig({ nodeId, engineDeadAfterMs: DEAD_AFTER }), clock);

  it('a node whose heartbeat stopped: DOWN, its held runs back to PENDING (executor kept), one ENGINE_DOWN alarm per tenant', async () => {
    await deadNode(db.dataSource, 'engine-dead');
    const held = { claimedBy: 'engine-dead', leaseUntil: T0 + 15_000 };
    const claimed = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', ...held, dueAt: T0 + 1000 });
    const dispatched = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', ...held, executorId: 7, dispatchedAt: T0 });
    const globex = await insertRun(db.dataSource, { taskId: task, tenantId: 'globex', state: 'CLAIMED', ...held });
    const accepted = await insertRun(db.dataSource, { taskId: task, state: 'ACCEPTED', ...held, executorId: 7 });
    const othersRun = await insertRun(db.dataSource, { taskId: task, tenantId: 'initech', state: 'CLAIMED', claimedBy: 'engine-live', leaseUntil: T0 + 30_000 });
    const s = survivor();

    clock.set(T0 + DEAD_AFTER - 1); // silent, but not long enough
    expect((await s.takeover.runOnce()).takeovers).toEqual([]);

    clock.set(T0 + DEAD_AFTER + 1000);
    const { takeovers } = await s.takeover.runOnce();
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0]).toMatchObject({ node: 'engine-dead', lastHeartbeatAt: T0, alarms: 2, released: { claimed: 2, dispatched: 1, skipped: 0 } });
    expect(takeovers[0].sinceLastHeartbeatMs).toBeGreaterThanOrEqual(DEAD_AFTER + 1000);

    expect(await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: 'engine-dead' })).toMatchObject({ state: 'DOWN' });
    for (const id of [claimed, globex]) expect(await run(db.dataSource, id)).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null });
    // The re-send goes to the same executor, which de-duplicates by (run id, attempt).
    expect(await run(db.dataSource, dispatched)).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null, executorId: 7, attempt: 1 });
    expect(await run(db.dataSource, accepted)).toMatchObject({ state: 'ACCEPTED', claimedBy: 'engine-dead' }); // the watchdog's business
    expect(await run(db.dataSource, othersRun)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-live' });

    const alarms = await db.dataSource.getRepository(AlarmEntity).find({ order: { tenantId: 'ASC' } });
    expect(alarms.map((a) => [a.tenantId, a.type, a.severity, a.raisedAt, a.publishedAt])).toEqual([
      ['acme', 'ENGINE_DOWN', 'CRITICAL', T0 + DEAD_AFTER + 1000, null],
      ['globex', 'ENGINE_DOWN', 'CRITICAL', T0 + DEAD_AFTER + 1000, null],
    ]);
    expect(alarms[0].message).toMatch(/An engine of your engine group stopped \(its heartbeats stopped.*\): 2 of your run\(s\) it held were taken over by another engine/);
    expect(alarms[0].data).toEqual({ cause: 'SILENT', runs: 2, lastHeartbeatAt: T0 });
    // The tenants learn nothing of the cluster's machines: no node id (`<host>-<pid>-…` by default), host or pid, theirs or the survivor's.
    for (const alarm of alarms) expect(JSON.stringify([alarm.message, alarm.data])).not.toMatch(/engine-dead|engine-a|elsewhere|pid/);

    clock.advance(DEAD_AFTER);
    expect((await s.takeover.runOnce()).takeovers).toEqual([]); // once
    expect(await db.dataSource.getRepository(AlarmEntity).count()).toBe(2);
  });

  it.runIf(kind === 'mysql')(
    'a node frozen in the middle of a transaction: the server rolls it back once idle, and the takeover goes through instead of waiting on its locks',
    async () => {
      await deadNode(db.dataSource, 'engine-frozen');
      const held = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-frozen', leaseUntil: T0 + 15_000 });
      // The frozen engine's session: a transaction that locked its run's row and will never say another word.
      const frozen = db.dataSource.createQueryRunner();
      await frozen.startTransaction();
      await frozen.query('SELECT id FROM runs WHERE id = ? FOR UPDATE', [held]);
      try {
        clock.set(T0 + DEAD_AFTER + 1000);
        // Blocks on the row until the server ends the idle transaction (innodb_lock_wait_timeout, 50 s, would fail it instead).
        const { takeovers } = await survivor().takeover.runOnce();
        expect(takeovers.map((t) => [t.node, t.released.claimed])).toEqual([['engine-frozen', 1]]);
        expect(await run(db.dataSource, held)).toMatchObject({ state: 'PENDING', claimedBy: null });
        await expect(frozen.query('SELECT 1')).rejects.toThrow();
      } finally {
        await frozen.release();
      }
    },
    30_000,
  );

  // Issue 11 item 5: a crash cost 8–9 s (engineDeadAfterMs of silence) before anyone took the runs back.
  describe.runIf(kind === 'mysql')('liveness locks (a crashed engine is found by its freed lock, not its silence)', () => {
    const locked = (nodeId: string) => claimSide(db.dataSource, testConfig({ nodeId, engineDeadAfterMs: DEAD_AFTER, livenessPollMs: 250 }), clock);

    it('takes over a node whose lock was held and is free now, at once; a lock seen in an earlier session of its own says nothing', async () => {
      const a = locked('engine-a');
      const b = locked('engine-b');
      try {
        await a.node.register('http://a');
        await b.node.register('http://b');
        const held = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-b', leaseUntil: T0 + 15_000, dueAt: T0 + 1000 });
        expect(await a.takeover.runByLocks()).toEqual([]); // b holds its lock: seen alive
        // A database restart: every session ends; a's comes back first and finds b's lock free.
        await a.lock.release();
        await b.lock.release();
        await a.lock.acquire();
        expect(await a.takeover.runByLocks()).toEqual([]); // b was seen held in a's previous session only
        await b.lock.acquire();
        expect(await a.takeover.runByLocks()).toEqual([]); // seen held again, in this session
        await b.lock.release(); // what a kill -9 does to its session; b's row stays UP with a fresh heartbeat
        // The server frees a lock when it has processed the client's disconnect, a moment after
        // the client closed: the engine's poll comes again (every 250 ms); here, a few tries.
        let found = await a.takeover.runByLocks();
        await vi.waitFor(
          async () => {
            if (found.length === 0) found = await a.takeover.runByLocks();
            expect(found).not.toEqual([]);
          },
          { timeout: 10_000, interval: 50 },
        );
        const [takeover, ...more] = found;
        expect(more).toEqual([]);
        expect(takeover).toMatchObject({ node: 'engine-b', cause: 'SESSION_ENDED', released: { claimed: 1 } });
        expect(await run(db.dataSource, held)).toMatchObject({ state: 'PENDING', claimedBy: null });
        expect(await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: 'engine-b' })).toMatchObject({ state: 'DOWN' });
        const [alarm] = await db.dataSource.getRepository(AlarmEntity).find();
        expect(alarm.message).toMatch(/stopped \(its database session ended/);
        expect(alarm.data).toMatchObject({ cause: 'SESSION_ENDED' });
        expect(await a.takeover.runByLocks()).toEqual([]); // once
      } finally {
        await a.lock.release();
        await b.lock.release();
      }
    });

    it('leaves a node whose lock it never saw held to the heartbeat (an older engine takes none)', async () => {
      const a = locked('engine-a');
      try {
        await a.node.register('http://a');
        await deadNode(db.dataSource, 'engine-old', T0);
        clock.advance(DEAD_AFTER);
        expect(await a.takeover.runByLocks()).toEqual([]);
        expect(await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: 'engine-old' })).toMatchObject({ state: 'UP' });
      } finally {
        await a.lock.release();
      }
    });

    it('refuses to start a second engine with a node id whose lock another session holds', async () => {
      const first = locked('engine-a');
      const second = locked('engine-a');
      try {
        await first.node.register('http://a');
        await expect(second.node.register('http://a2')).rejects.toThrow(/Node id "engine-a" is in use/);
        await first.node.markDown(); // graceful stop: DOWN, then the lock goes
        await expect(second.node.register('http://a2')).resolves.toEqual([]);
      } finally {
        await first.lock.release();
        await second.lock.release();
      }
    });
  });

  it('writes no alarm for a dead node that held nothing, and leaves a node that came back alone', async () => {
    await deadNode(db.dataSource, 'engine-idle');
    await deadNode(db.dataSource, 'engine-back');
    clock.set(T0 + DEAD_AFTER + 1);
    await registerEngineNode(db.dataSource.manager, { id: 'engine-back', groups: ['default'], host: 'h', pid: 2, url: 'u', slots: 1, startedAt: T0, heartbeatAt: clock.now() });
    const { takeovers } = await survivor().takeover.runOnce();
    expect(takeovers.map((t) => [t.node, t.alarms])).toEqual([['engine-idle', 0]]);
    expect(await db.dataSource.getRepository(AlarmEntity).count()).toBe(0);
    expect(await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: 'engine-back' })).toMatchObject({ state: 'UP' });
  });

  it('applies the misfire policy to runs that became too late', async () => {
    await deadNode(db.dataSource, 'engine-dead');
    const held = { state: 'CLAIMED' as const, claimedBy: 'engine-dead', leaseUntil: T0 + 15_000 };
    const tasks = {
      skip: await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfirePolicy: 'SKIP', misfireThresholdMs: 1000 }),
      once: await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfirePolicy: 'FIRE_ONCE_NOW', misfireThresholdMs: 1000 }),
      all: await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfirePolicy: 'FIRE_ALL_MISSED', misfireThresholdMs: 1000 }),
    };
    const ids: Record<string, number[]> = {};
    for (const [name, taskId] of Object.entries(tasks)) {
      ids[name] = [];
      for (const dueAt of [T0, T0 + 1000, T0 + 2000]) ids[name].push(await insertRun(db.dataSource, { taskId, ...held, dueAt, fireKey: `s:${dueAt}` }));
    }
    const s = survivor();
    clock.set(T0 + DEAD_AFTER + 1000); // every run is late by more than 1 s …
    // … except this one (late by 500 ms), a manual run and a retry, which fire anyway.
    const onTime = await insertRun(db.dataSource, { taskId: tasks.skip, ...held, dueAt: clock.now() - 500 });
    const manual = await insertRun(db.dataSource, { taskId: tasks.skip, ...held, cause: 'MANUAL' });
    const retry = await insertRun(db.dataSource, { taskId: tasks.skip, ...held, attempt: 2 });

    const { takeovers } = await s.takeover.runOnce();
    expect(takeovers[0].released).toMatchObject({ claimed: 7, dispatched: 0, skipped: 5 });
    const state = async (id: number) => (await run(db.dataSource, id)).state;
    expect(await Promise.all(ids.skip.map(state))).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
    expect(await Promise.all(ids.once.map(state))).toEqual(['SKIPPED', 'SKIPPED', 'PENDING']); // only the latest fires
    expect(await Promise.all(ids.all.map(state))).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(await Promise.all([onTime, manual, retry].map(state))).toEqual(['PENDING', 'PENDING', 'PENDING']);
    const skipped = await run(db.dataSource, ids.once[0]);
    expect(skipped).toMatchObject({ claimedBy: null, finishedAt: clock.now() });
    expect(skipped.error).toMatch(new RegExp(`run ${ids.once[2]} fires once`));
  });

  it('sweeps expired leases of any node, leaving live leases alone', async () => {
    clock.set(T0 + 20_000);
    await registerEngineNode(db.dataSource.manager, { id: 'engine-b', groups: ['default'], host: 'h', pid: 2, url: 'u', slots: 1, startedAt: T0, heartbeatAt: clock.now() });
    const expired = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: 'engine-b', leaseUntil: clock.now() - 1, executorId: 3 });
    const live = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-b', leaseUntil: clock.now() + 1000 });
    const mine = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: clock.now() - 1 });
    const { takeovers, sweeps } = await survivor().takeover.runOnce();
    expect(takeovers).toEqual([]);
    expect(sweeps.map((s) => [s.owner, s.released.dispatched])).toEqual([['engine-b', 1]]);
    expect(await run(db.dataSource, expired)).toMatchObject({ state: 'PENDING', executorId: 3, claimedBy: null });
    expect(await run(db.dataSource, live)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-b' });
    expect(await run(db.dataSource, mine)).toMatchObject({ state: 'CLAIMED' }); // its own renewal's job
    expect(await db.dataSource.getRepository(AlarmEntity).count()).toBe(0);
  });
});

describe('survivors racing on mysql', () => {
  const db = useTestDatabase('mysql');

  it('take each dead node over once: one winner, one ENGINE_DOWN alarm, each run released once', async () => {
    await db.clear(); // the block's other test may have run first (--sequence.shuffle)
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfireThresholdMs: 60_000 });
    const dead = ['d1', 'd2', 'd3', 'd4', 'd5'];
    for (const id of dead) {
      await deadNode(db.dataSource, id);
      for (let i = 0; i < 20; i++) await insertRun(db.dataSource, { taskId: task, state: i % 2 ? 'CLAIMED' : 'DISPATCHED', claimedBy: id, leaseUntil: T0 + 60_000, executorId: 1 });
    }
    const clock = new ManualClock(T0 + DEAD_AFTER + 1);
    const other = await openDatabase(db.url);
    try {
      const s1 = claimSide(db.dataSource, testConfig({ nodeId: 's1', engineDeadAfterMs: DEAD_AFTER }), clock).takeover;
      const s2 = claimSide(other, testConfig({ nodeId: 's2', engineDeadAfterMs: DEAD_AFTER }), clock).takeover;
      const [r1, r2] = await Promise.all([s1.runOnce(), s2.runOnce()]);
      const won = [...r1.takeovers, ...r2.takeovers];
      expect(won.map((t) => t.node).sort()).toEqual(dead);
      expect(won.reduce((n, t) => n + t.released.claimed + t.released.dispatched, 0)).toBe(100);
      const alarms = await db.dataSource.getRepository(AlarmEntity).find();
      expect(alarms).toHaveLength(5);
      expect(alarms.map((a) => (a.data as { runs: number }).runs)).toEqual([20, 20, 20, 20, 20]); // one a dead node
      expect((await runsOf(db.dataSource)).every((r) => r.state === 'PENDING' && r.claimedBy === null && r.executorId === 1)).toBe(true);
    } finally {
      await other.destroy();
    }
  });

  // How long a takeover takes is measured by bench/ (a test asserts no duration): here, that it happens, and not before dead-after.
  it('a survivor claims a dead node’s runs again, not before its dead-after from the last heartbeat', async () => {
    await db.clear();
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    await insertUpExecutor(db.dataSource, 'acme', 500); // room enough for all 200 on one engine
    for (let i = 0; i < 200; i++) await insertRun(db.dataSource, { taskId: task, dueAt: Date.now() + 60_000 });
    const timings = { heartbeatMs: 100, engineDeadAfterMs: 500, claimIntervalMs: 50, leaseMs: 30_000, lookAheadMs: 120_000 };
    // The victim registers, claims everything, heartbeats once more — then is killed (nothing runs any more).
    const victim = claimSide(db.dataSource, testConfig({ nodeId: 'victim', ...timings }), systemClock);
    await victim.node.register('http://victim');
    expect((await victim.claimer.claimOnce()).claimed).toBe(200);
    await victim.node.heartbeat();
    const lastHeartbeat = victim.node.heartbeatAt!;

    const other = await openDatabase(db.url);
    const survivor = claimSide(other, testConfig({ nodeId: 'survivor', ...timings }), systemClock);
    try {
      await survivor.lifecycle.start('http://survivor');
      await vi.waitFor(() => expect(survivor.queue.held).toBe(200), { timeout: 20_000, interval: 10 });
      expect(Date.now() - lastHeartbeat).toBeGreaterThanOrEqual(timings.engineDeadAfterMs);
      const rows = await runsOf(db.dataSource);
      expect(rows.every((r) => r.state === 'CLAIMED' && r.claimedBy === 'survivor')).toBe(true);
    } finally {
      await survivor.lifecycle.stop();
      await other.destroy();
    }
  });
});
