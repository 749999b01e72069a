import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { openDatabase, RunEntity, TaskEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { claimSide, insertTask, runsOf, T0, taskRow, testConfig } from '../testing/engine-test-kit';

describe.each(TEST_DATABASES)('planner on %s', (kind) => {
  const db = useTestDatabase(kind);
  let clock: ManualClock;
  beforeEach(async () => {
    await db.clear();
    clock = new ManualClock(T0);
  });
  const planner = (overrides = {}) => claimSide(db.dataSource, testConfig(overrides), clock).planner;

  it('turns cron and fixed-rate fire times within the look-ahead into PENDING run rows', async () => {
    const cron = await insertTask(db.dataSource, { trigger: { kind: 'CRON', expression: '*/10 * * * * *', timeZone: 'UTC' }, params: { a: 1 }, priority: 7 });
    const rate = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 7000 }, tenantId: 'globex' });

    const result = await planner({ lookAheadMs: 30_000 }).planOnce();

    expect(result).toMatchObject({ tasks: 2, runs: 9, full: false });
    const cronRuns = await runsOf(db.dataSource, cron);
    expect(cronRuns.map((r) => r.scheduledAt - T0)).toEqual([0, 10_000, 20_000, 30_000]);
    for (const r of cronRuns) {
      expect(r).toMatchObject({
        tenantId: 'acme',
        engineGroup: 'default',
        state: 'PENDING',
        cause: 'SCHEDULE',
        fireKey: `s:${r.scheduledAt}`,
        dueAt: r.scheduledAt,
        attempt: 1,
        priority: 7,
        params: { a: 1 },
        claimedBy: null,
        createdAt: T0,
      });
      expect(r.flowId).toBeNull(); // each scheduled run is the root of its own flow
    }
    const rateRuns = await runsOf(db.dataSource, rate);
    expect(rateRuns.map((r) => r.scheduledAt - T0)).toEqual([0, 7000, 14_000, 21_000, 28_000]);
    expect(rateRuns.every((r) => r.tenantId === 'globex')).toBe(true);

    expect(await taskRow(db.dataSource, cron)).toMatchObject({ nextFireAt: T0 + 40_000, fireCount: 4, version: 1 });
    expect(await taskRow(db.dataSource, rate)).toMatchObject({ nextFireAt: T0 + 35_000, fireCount: 5 });
  });

  it('a second pass plans nothing twice, even after a stale write moved next_fire_at back', async () => {
    const id = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 } });
    const p = planner();
    await p.planOnce();
    expect((await p.planOnce()).tasks).toBe(0);
    expect(await runsOf(db.dataSource, id)).toHaveLength(3); // T0, +1 s, +2 s (look-ahead 2 s)

    // A console edit that read the task before the planner wrote it writes the old state back.
    await db.dataSource.getRepository(TaskEntity).update({ id }, { nextFireAt: T0, fireCount: 0 });
    clock.advance(500);
    await p.planOnce();
    const runs = await runsOf(db.dataSource, id);
    expect(runs.map((r) => r.fireKey)).toEqual([`s:${T0}`, `s:${T0 + 1000}`, `s:${T0 + 2000}`]);
    expect(new Set(runs.map((r) => r.id)).size).toBe(3);
    expect(await taskRow(db.dataSource, id)).toMatchObject({ nextFireAt: T0 + 3000, fireCount: 3 });
  });

  describe('misfires after 20 s of downtime (fixed rate 1 s, threshold 5 s, look-ahead 2 s)', () => {
    const downtime = async (misfirePolicy: 'SKIP' | 'FIRE_ONCE_NOW' | 'FIRE_ALL_MISSED') => {
      const id = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, misfirePolicy, misfireThresholdMs: 5000 });
      clock.set(T0 + 20_000);
      await planner().planOnce();
      return { id, runs: await runsOf(db.dataSource, id), task: await taskRow(db.dataSource, id) };
    };
    const onTime = Array.from({ length: 8 }, (_, i) => T0 + 15_000 + i * 1000); // now-5 s … now+2 s

    it('SKIP records the 15 missed fire times as SKIPPED and fires the on-time ones', async () => {
      const { runs, task } = await downtime('SKIP');
      const skipped = runs.filter((r) => r.state === 'SKIPPED');
      expect(skipped.map((r) => r.scheduledAt)).toEqual(Array.from({ length: 15 }, (_, i) => T0 + i * 1000));
      expect(skipped.every((r) => r.finishedAt === T0 + 20_000 && /misfire/.test(r.error ?? ''))).toBe(true);
      const pending = runs.filter((r) => r.state === 'PENDING');
      expect(pending.map((r) => r.scheduledAt)).toEqual(onTime);
      expect(pending.map((r) => r.dueAt)).toEqual(onTime);
      expect(task).toMatchObject({ fireCount: 23, nextFireAt: T0 + 23_000 });
    });

    it('FIRE_ONCE_NOW fires one run now for all the missed times', async () => {
      const { runs, task } = await downtime('FIRE_ONCE_NOW');
      expect(runs.every((r) => r.state === 'PENDING')).toBe(true);
      expect(runs[0]).toMatchObject({ scheduledAt: T0 + 14_000, dueAt: T0 + 20_000, fireKey: `s:${T0 + 14_000}` });
      expect(runs.slice(1).map((r) => r.scheduledAt)).toEqual(onTime);
      expect(task).toMatchObject({ fireCount: 23, nextFireAt: T0 + 23_000 });
    });

    it('FIRE_ALL_MISSED fires every missed time now', async () => {
      const { runs, task } = await downtime('FIRE_ALL_MISSED');
      expect(runs).toHaveLength(23);
      expect(runs.every((r) => r.state === 'PENDING')).toBe(true);
      expect(runs.slice(0, 15).every((r) => r.dueAt === T0 + 20_000)).toBe(true);
      expect(runs.slice(15).map((r) => r.dueAt)).toEqual(onTime);
      expect(task.fireCount).toBe(23);
    });
  });

  it('maxFires and endAt stop planning', async () => {
    const capped = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, maxFires: 3 });
    const ending = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, endAt: T0 + 2500 });
    const p = planner({ lookAheadMs: 10_000 });
    await p.planOnce();
    clock.advance(60_000);
    await p.planOnce();
    expect((await runsOf(db.dataSource, capped)).map((r) => r.scheduledAt - T0)).toEqual([0, 1000, 2000]);
    expect((await runsOf(db.dataSource, ending)).map((r) => r.scheduledAt - T0)).toEqual([0, 1000, 2000]);
    expect(await taskRow(db.dataSource, capped)).toMatchObject({ nextFireAt: null, fireCount: 3 });
    expect(await taskRow(db.dataSource, ending)).toMatchObject({ nextFireAt: null });
  });

  it('an instant given back behind fires planned since is planned again, and those fires are not counted twice (maxFires)', async () => {
    const id = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, maxFires: 5 });
    const p = planner({ lookAheadMs: 2000 });
    await p.planOnce(); // T0, +1 s, +2 s
    // The fire at +1 s was withdrawn from its executor, which said it never started it: its key freed, its instant given back.
    const withdrawn = (await runsOf(db.dataSource, id)).find((r) => r.scheduledAt === T0 + 1000)!;
    await db.dataSource.getRepository(RunEntity).update({ id: withdrawn.id }, { state: 'CANCELLED', fireKey: `w:${withdrawn.id}` });
    await db.dataSource.getRepository(TaskEntity).update({ id }, { nextFireAt: T0 + 1000, fireCount: 2 });
    await p.planOnce();
    expect(await taskRow(db.dataSource, id)).toMatchObject({ nextFireAt: T0 + 3000, fireCount: 3 });
    clock.advance(2000);
    await p.planOnce();
    const fires = (await runsOf(db.dataSource, id)).filter((r) => r.fireKey.startsWith('s:'));
    expect(fires.map((r) => r.scheduledAt - T0).sort((a, b) => a - b)).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(await taskRow(db.dataSource, id)).toMatchObject({ nextFireAt: null, fireCount: 5 });
  });

  it('plans neither paused nor MANUAL tasks, nor tasks of other engine groups', async () => {
    const paused = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, paused: true });
    // MANUAL never has a next fire time; one written behind the console's back is still ignored.
    const manual = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, nextFireAt: T0 });
    const foreign = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, engineGroup: 'other' });
    const p = planner();
    expect(await p.planOnce()).toMatchObject({ tasks: 0, runs: 0 });
    expect(await runsOf(db.dataSource)).toHaveLength(0);

    // Resumed after 10 s: the stored next fire time has passed, the misfire policy applies.
    await db.dataSource.getRepository(TaskEntity).update({ id: paused }, { paused: false });
    clock.advance(10_000);
    await p.planOnce();
    const runs = await runsOf(db.dataSource);
    expect(runs.every((r) => r.taskId === paused)).toBe(true);
    expect(runs[0]).toMatchObject({ scheduledAt: T0 + 4000, dueAt: T0 + 10_000 }); // FIRE_ONCE_NOW stand-in
    expect(await taskRow(db.dataSource, manual)).toMatchObject({ nextFireAt: T0, fireCount: 0 });
    expect(await taskRow(db.dataSource, foreign)).toMatchObject({ fireCount: 0 });
  });

  it('a turn with nothing due (paused, MANUAL, another group, later than the look-ahead) opens no transaction', async () => {
    await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, paused: true });
    await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, nextFireAt: T0 });
    await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 }, engineGroup: 'other' });
    await insertTask(db.dataSource, { trigger: { kind: 'ONCE', at: T0 + 60_000 } });
    let transactions = 0;
    const counter = { afterTransactionStart: () => void transactions++ };
    db.dataSource.subscribers.push(counter);
    try {
      const p = planner({ lookAheadMs: 2000 });
      expect(await p.planOnce()).toEqual({ tasks: 0, runs: 0, full: false });
      expect(transactions).toBe(0);
      clock.advance(59_000); // the ONCE task comes within the look-ahead
      expect(await p.planOnce()).toMatchObject({ tasks: 1, runs: 1 });
      expect(transactions).toBe(1);
    } finally {
      db.dataSource.subscribers.splice(db.dataSource.subscribers.indexOf(counter), 1);
    }
  });

  it('FIXED_DELAY plans only its stored fire; the next waits for the run to finish', async () => {
    const id = await insertTask(db.dataSource, { trigger: { kind: 'FIXED_DELAY', delayMs: 1000 } });
    const p = planner();
    await p.planOnce();
    clock.advance(5000);
    await p.planOnce();
    expect((await runsOf(db.dataSource, id)).map((r) => r.scheduledAt)).toEqual([T0]);
    expect(await taskRow(db.dataSource, id)).toMatchObject({ nextFireAt: null, fireCount: 1 });
  });

  it('a ONCE task fires once', async () => {
    const id = await insertTask(db.dataSource, { trigger: { kind: 'ONCE', at: T0 + 1500 } });
    const p = planner();
    await p.planOnce();
    clock.advance(10_000);
    await p.planOnce();
    expect((await runsOf(db.dataSource, id)).map((r) => r.scheduledAt)).toEqual([T0 + 1500]);
    expect(await taskRow(db.dataSource, id)).toMatchObject({ nextFireAt: null, fireCount: 1 });
  });

  it('works through a backlog in batches of planBatch, asking for the next batch at once', async () => {
    for (let i = 0; i < 5; i++) await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 } });
    const p = planner({ planBatch: 2 });
    expect(await p.planOnce()).toMatchObject({ tasks: 2, full: true });
    expect(await p.planOnce()).toMatchObject({ tasks: 2, full: true });
    expect(await p.planOnce()).toMatchObject({ tasks: 1, full: false });
    expect(await runsOf(db.dataSource)).toHaveLength(5);
  });
});

describe('two planners racing on mysql', () => {
  const db = useTestDatabase('mysql');

  it('produce exactly one run per fire time, and count each fire once', async () => {
    const tasks: number[] = [];
    for (let i = 0; i < 40; i++) tasks.push(await insertTask(db.dataSource, { trigger: { kind: 'FIXED_RATE', intervalMs: 1000 } }));
    const clock = new ManualClock(T0);
    const other = await openDatabase(db.url); // a second engine: its own connection pool
    try {
      const a = claimSide(db.dataSource, testConfig({ nodeId: 'a', planBatch: 7 }), clock).planner;
      const b = claimSide(other, testConfig({ nodeId: 'b', planBatch: 7 }), clock).planner;
      const drain = async (p: typeof a) => {
        let tasksPlanned = 0;
        for (;;) {
          const r = await p.planOnce();
          tasksPlanned += r.tasks;
          if (!r.full) return tasksPlanned;
        }
      };
      const planned = { a: 0, b: 0 };
      for (let step = 0; step < 10; step++) {
        clock.set(T0 + step * 1000);
        const [x, y] = await Promise.all([drain(a), drain(b)]);
        planned.a += x;
        planned.b += y;
      }
      // Both really worked (the race happened), and between them every task was planned each step.
      expect(planned.a).toBeGreaterThan(0);
      expect(planned.b).toBeGreaterThan(0);
      for (const id of tasks) {
        const runs = await runsOf(db.dataSource, id);
        // Fire times T0 … T0 + 11 s (last step 9 s + look-ahead 2 s), each exactly once.
        expect(runs.map((r) => r.scheduledAt - T0)).toEqual(Array.from({ length: 12 }, (_, i) => i * 1000));
        // A task planned by both at once would count its fires twice.
        expect(await taskRow(db.dataSource, id)).toMatchObject({ fireCount: 12, nextFireAt: T0 + 12_000 });
      }
    } finally {
      await other.destroy();
    }
  });
});
