import { inspect } from 'node:util';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { AlarmEntity, EngineGroupEntity, EngineNodeEntity, registerEngineNode, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { claimSide, insertRun, insertTask, runsOf, T0, testConfig } from '../testing/engine-test-kit';
import { eventually } from '../testing/eventually';
import { DispatchMarks } from '../runs/dispatch-marks';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import { EngineAlreadyRunningError } from './engine-already-running-error';

describe.each(TEST_DATABASES)('engine node lifecycle on %s', (kind) => {
  const db = useTestDatabase(kind);
  let clock: ManualClock;
  beforeEach(async () => {
    await db.clear();
    clock = new ManualClock(T0);
  });
  const engine = (overrides = {}) => claimSide(db.dataSource, testConfig({ heartbeatMs: 20, claimIntervalMs: 10, planIntervalMs: 10, ...overrides }), clock);
  const nodeRow = (id: string) => db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id });

  it('registers UP, heartbeats, claims; a graceful stop gives the held runs back and marks the node DOWN', async () => {
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const ids = [await insertRun(db.dataSource, { taskId: task }), await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1000 })];
    const e = engine({ groups: ['default', 'reports'], slots: 16 });
    await e.lifecycle.start('http://127.0.0.1:9999');

    expect(e.lifecycle.state).toBe('RUNNING');
    expect(await nodeRow('engine-a')).toMatchObject({
      groups: 'default,reports',
      host: hostname(),
      pid: process.pid,
      url: 'http://127.0.0.1:9999',
      slots: 16,
      startedAt: T0,
      heartbeatAt: T0,
      state: 'UP',
    });
    await eventually(() => e.queue.held === 2);
    clock.advance(1234);
    await eventually(async () => (await nodeRow('engine-a')).heartbeatAt === T0 + 1234);

    await e.lifecycle.stop();
    expect(e.lifecycle.state).toBe('STOPPED');
    expect(e.queue.held).toBe(0); // drained
    expect((await nodeRow('engine-a')).state).toBe('DOWN');
    for (const r of await runsOf(db.dataSource)) expect(r).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null });
    expect((await runsOf(db.dataSource)).map((r) => r.id).sort()).toEqual(ids.sort());
  });

  it('a graceful stop gives back a run written already sent that had not left: PENDING, its executor kept for the next claim', async () => {
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const e = engine();
    await e.lifecycle.start('http://127.0.0.1:9999');
    const runId = await insertRun(db.dataSource, { taskId: task, cause: 'MANUAL', state: 'DISPATCHED', claimedBy: 'engine-a', leaseUntil: T0 + 15_000, executorId: 7, dispatchedAt: T0, deadlineAt: T0 + 60_000, dueAt: T0 + 1000 });
    e.queue.accept([aClaimedRun(runId, T0 + 1000, { taskId: task, executorId: 7, markedAt: T0, leaseUntil: T0 + 15_000 })]);
    await e.lifecycle.stop();
    const [run] = (await runsOf(db.dataSource)).filter((r) => r.id === runId);
    expect(run).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null, executorId: 7 });
  });

  it('creates the engine groups it serves that do not exist, and keeps the ones that do', async () => {
    const groups = db.dataSource.getRepository(EngineGroupEntity);
    await groups.insert({ name: 'default', description: 'by the operator', createdAt: T0 - 1000 });
    const a = engine({ groups: ['default', 'reports', 'batch'] });
    const b = claimSide(db.dataSource, testConfig({ nodeId: 'engine-b', groups: ['reports'], heartbeatMs: 20 }), clock);
    await a.lifecycle.start('http://a');
    if (kind === 'mysql') await b.lifecycle.start('http://b'); // SQLite runs one engine only
    expect((await groups.find({ order: { name: 'ASC' } })).map((g) => [g.name, g.description, g.createdAt])).toEqual([
      ['batch', 'created by engine engine-a', T0],
      ['default', 'by the operator', T0 - 1000],
      ['reports', 'created by engine engine-a', T0],
    ]);
    await b.lifecycle.stop();
    await a.lifecycle.stop();
  });

  it('gives back, at start, the runs its node id still holds from a previous life', async () => {
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfireThresholdMs: 60_000 });
    const claimed = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: T0 + 10_000 });
    const dispatched = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: 'engine-a', leaseUntil: T0 + 10_000, executorId: 5 });
    const e = engine({ claimIntervalMs: 60_000 });
    await e.lifecycle.start('http://x');
    const row = (id: number) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
    // Released at start, then claimed again by this new life — so they are in its queue, not lost.
    await eventually(() => e.queue.held === 2);
    expect(e.queue.runs.map((r) => r.runId).sort()).toEqual([claimed, dispatched].sort());
    expect(e.queue.runs.find((r) => r.runId === dispatched)?.executorId).toBe(5);
    expect((await row(dispatched)).state).toBe('CLAIMED');
    await e.lifecycle.stop();
  });

  it('re-registers UP when another engine declared it DOWN', async () => {
    const e = engine({ heartbeatMs: 60_000 });
    await e.lifecycle.start('http://x');
    await db.dataSource.getRepository(EngineNodeEntity).update({ id: 'engine-a' }, { state: 'DOWN' });
    clock.advance(100);
    await e.node.heartbeat();
    expect(await nodeRow('engine-a')).toMatchObject({ state: 'UP', heartbeatAt: T0 + 100 });
    await e.lifecycle.stop();
  });

  it('a heartbeat that waited states the time it is written, and so does the re-registration after a survivor declared the node DOWN', async () => {
    const e = engine({ heartbeatMs: 10_000, engineDeadAfterMs: 30_000 });
    await e.lifecycle.start('http://x');
    // The clock moves while the write is on its way (a black-holed connection, a frozen process).
    const late = e.node.heartbeat();
    clock.advance(16_700);
    await late;
    expect((await nodeRow('engine-a')).heartbeatAt).toBe(T0 + 16_700);
    await db.dataSource.getRepository(EngineNodeEntity).update({ id: 'engine-a' }, { state: 'DOWN' });
    const back = e.node.heartbeat();
    clock.advance(16_700);
    await back;
    expect(await nodeRow('engine-a')).toMatchObject({ state: 'UP', heartbeatAt: T0 + 33_400 });
    await e.lifecycle.stop();
  });

  it('back from a stall: claims nothing before its heartbeat, and cannot send the runs taken over meanwhile', async () => {
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfireThresholdMs: 600_000 });
    const held = await insertRun(db.dataSource, { taskId: task });
    const e = engine({ heartbeatMs: 60_000 });
    await e.lifecycle.start('http://a');
    await eventually(() => e.queue.held === 1);
    // Frozen past its dead-after: a survivor declares it DOWN and releases its run.
    clock.advance(e.config.engineDeadAfterMs + 1000);
    const survivor = claimSide(db.dataSource, testConfig({ nodeId: 'engine-b' }), clock);
    expect((await survivor.takeover.runOnce()).takeovers.map((t) => t.node)).toEqual(['engine-a']);
    const due = await insertRun(db.dataSource, { taskId: task, dueAt: clock.now() });
    expect(e.liveness.lapsed).toBe(true);
    expect((await e.claimer.claimOnce()).claimed).toBe(0);
    // Fencing: the run still in its memory is no longer its to send.
    const inMemory = e.queue.runs.find((r) => r.runId === held)!;
    expect(await new DispatchMarks(db.dataSource, e.config, clock).markDispatched(inMemory, 7)).toBeNull();
    await e.node.heartbeat();
    expect(await nodeRow('engine-a')).toMatchObject({ state: 'UP', heartbeatAt: clock.now() });
    expect(e.liveness.lapsed).toBe(false);
    await eventually(() => e.queue.runs.some((r) => r.runId === due));
    await e.lifecycle.stop();
  });

  it('refuses a node id used by a live engine elsewhere', async () => {
    await registerEngineNode(db.dataSource.manager, { id: 'engine-a', groups: ['default'], host: 'elsewhere', pid: 42, url: 'http://e', slots: 1, startedAt: T0, heartbeatAt: T0 - 1000 });
    const e = engine();
    await expect(e.lifecycle.start('http://x')).rejects.toThrow(/Node id "engine-a" is in use.*host elsewhere, pid 42/);
    expect(e.lifecycle.state).toBe('STOPPED');
    expect((await nodeRow('engine-a')).host).toBe('elsewhere');
  });

  if (kind === 'sqlite') {
    it('embedded (SQLite): refuses to start while another engine is UP with a fresh heartbeat', async () => {
      await registerEngineNode(db.dataSource.manager, { id: 'engine-z', groups: ['default'], host: 'elsewhere', pid: 42, url: 'http://z', slots: 1, startedAt: T0, heartbeatAt: T0 - 3000, wakeKey: 'the-wake-key-of-z' });
      const e = engine();
      const error = await e.lifecycle.start('http://x').catch((err: unknown) => err);
      expect(error).toBeInstanceOf(EngineAlreadyRunningError);
      // An error is logged whole: the other engine's wake key is not in it.
      expect(inspect(error, { depth: 5 })).not.toContain('the-wake-key-of-z');
      expect((error as Error).message).toMatch(/^Embedded mode \(SQLite\) runs one engine only: engine node "engine-z" \(host elsewhere, pid 42, http:\/\/z\) is UP, last heartbeat 3000 ms ago/);
      expect(await db.dataSource.getRepository(EngineNodeEntity).count()).toBe(1);

      // Once its heartbeat is older than engineDeadAfterMs it is dead, and its runs are taken over.
      clock.advance(10_000);
      await e.lifecycle.start('http://x');
      expect((await nodeRow('engine-z')).state).toBe('DOWN');
      await e.lifecycle.stop();
    });

    it('embedded (SQLite): an engine of this host whose process is gone is taken over at once', async () => {
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, misfireThresholdMs: 60_000 });
      await registerEngineNode(db.dataSource.manager, { id: 'crashed', groups: ['default'], host: hostname(), pid: gone, url: 'http://c', slots: 1, startedAt: T0, heartbeatAt: T0 - 100 });
      const run = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'crashed', leaseUntil: T0 + 15_000 });
      const e = engine({ claimIntervalMs: 60_000 });
      await e.lifecycle.start('http://x');
      expect((await nodeRow('crashed')).state).toBe('DOWN');
      await eventually(() => e.queue.runs.some((r) => r.runId === run));
      expect(await db.dataSource.getRepository(AlarmEntity).countBy({ type: 'ENGINE_DOWN' })).toBe(1);
      await e.lifecycle.stop();
    });
  } else {
    it('cluster (MySQL): a second engine starts beside a live one', async () => {
      await registerEngineNode(db.dataSource.manager, { id: 'engine-z', groups: ['default'], host: 'elsewhere', pid: 42, url: 'http://z', slots: 1, startedAt: T0, heartbeatAt: T0 });
      const e = engine();
      await e.lifecycle.start('http://x');
      expect((await nodeRow('engine-z')).state).toBe('UP');
      await e.lifecycle.stop();
    });
  }
});
