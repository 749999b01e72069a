import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, OffsetClock, READING_ROUNDING_MS } from '@baton/domain';
import { AlarmEntity, EngineNodeEntity, readDatabaseTime } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { ClockSkewAlarm } from '../alarms/clock-skew-alarm';
import type { Alarms } from '../alarms/alarms';
import { newAlarms } from '../alarms/testing/new-alarms';
import { claimSide, ensureTenant, insertRun, insertTask, testConfig } from '../testing/engine-test-kit';
import { ClockCheck } from './clock-check';

/**
 * Clocks measured, not trusted (issue 39 item 2): an engine whose machine clock is off
 * measures the offset from the database's clock, schedules corrected by it, raises CLOCK_SKEW
 * once, and — beyond the stop bound — claims nothing until its clock is back in bound. The
 * machine clock is a ManualClock set from the database's time, so the skew is exact however
 * loaded the machine is: it stands still while the database's clock moves on, so the offset
 * measured is the skew plus the time since it was set (never less).
 */
describe.each(TEST_DATABASES)('clock check on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(async () => {
    await db.clear();
    await ensureTenant(db.dataSource, 'acme');
  });
  /** The engines' alarms: the repeats they counted are written (their timers stopped) before the next test. */
  const made: Alarms[] = [];
  afterEach(async () => {
    for (const alarms of made.splice(0)) await alarms.countsWritten();
  });

  /** `skewMs`: how far the machine's clock is ahead (negative: behind); bounds wide of the test's own time passing. */
  async function skewedEngine(skewMs: number, clockSkewStopMs: number) {
    const machine = new ManualClock((await readDatabaseTime(db.dataSource.manager)) + skewMs);
    const clock = new OffsetClock(machine);
    const config = testConfig({ clockSkewAlarmMs: 500, clockSkewStopMs });
    const side = claimSide(db.dataSource, config, clock);
    const alarms = newAlarms(db.dataSource);
    made.push(alarms);
    const check = new ClockCheck(db.dataSource, config, side.clockWatch, new ClockSkewAlarm(db.dataSource, config, alarms));
    await side.node.register('http://127.0.0.1:9');
    return { machine, clock, side, check, alarms };
  }

  it('applies no reading whose round trip was long (a held-up answer is anywhere in it): the clock keeps its last precise offset', async () => {
    // A machine clock that moves 5 s with every read: each reading's round trip is 5 s long.
    let t = await readDatabaseTime(db.dataSource.manager);
    const base = new ManualClock(t);
    const clock = new OffsetClock({ now: () => (t += 5_000), after: (ms, fn) => base.after(ms, fn) });
    const config = testConfig({ clockSkewAlarmMs: 500, clockSkewStopMs: 2_000 });
    const side = claimSide(db.dataSource, config, clock);
    expect(await side.clockWatch.check()).toBe('IN_BOUND');
    expect(side.clockWatch.measure).toBeNull();
    expect(clock.offsetMs).toBe(0);
    expect(side.clockWatch.mayClaim).toBe(true);
  });

  it('an engine 60 s ahead: offset measured, its clock corrected, CLOCK_SKEW once, no claims until its clock is fixed', async () => {
    const { machine, clock, side, check } = await skewedEngine(60_000, 2_000);
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    await insertRun(db.dataSource, { taskId: task, dueAt: (await readDatabaseTime(db.dataSource.manager)) + 1_000 });

    await check.runOnce();
    const measure = side.clockWatch.measure!;
    expect(measure.state).toBe('STOPPED');
    // The machine's clock stood still while the database's moved on: −60 s plus the time since it was set.
    expect(measure.offsetMs).toBeGreaterThanOrEqual(-60_000);
    expectNotAhead(clock, measure); // the engine's time is the database's, never ahead of it
    expect(await side.claimer.claimOnce()).toMatchObject({ claimed: 0 });
    const [node] = await db.dataSource.getRepository(EngineNodeEntity).find();
    expect(node.clockOffsetMs).toBe(measure.offsetMs);
    await check.runOnce(); // still off: the episode's alarm is not raised again
    expect(await db.dataSource.getRepository(AlarmEntity).find()).toEqual([
      expect.objectContaining({ tenantId: 'acme', type: 'CLOCK_SKEW', severity: 'WARNING', taskId: null, message: expect.stringMatching(/ahead of the database's.*claims no runs/) }),
    ]);
    const [alarm] = await db.dataSource.getRepository(AlarmEntity).find();
    // The tenant is not told which engine (its node id names its host by default): the operator's page and the engine's log are.
    expect(JSON.stringify([alarm.message, alarm.data])).not.toContain('engine-a');

    machine.set(await readDatabaseTime(db.dataSource.manager)); // NTP fixed it
    await check.runOnce();
    expect(side.clockWatch.measure!.state).toBe('IN_BOUND');
    expect(await side.claimer.claimOnce()).toMatchObject({ claimed: 1 });
  });

  it('a later episode another way (ahead, then behind and stopped) or a stop within one is alarmed again: the open CLOCK_SKEW counts it and says what stands now', async () => {
    const { machine, side, check, alarms } = await skewedEngine(1_200, 2_000);
    const clockSkews = async () => {
      await alarms.countsWritten();
      return db.dataSource.getRepository(AlarmEntity).find({ where: { type: 'CLOCK_SKEW' } });
    };
    await check.runOnce();
    expect(side.clockWatch.measure!.state).toBe('SKEWED');
    expect(await clockSkews()).toEqual([expect.objectContaining({ count: 1, message: expect.stringMatching(/^An engine of your engine group: its clock is 1\d{3} ms ahead of the database's.*It schedules on the database's time/) })]);

    machine.set(await readDatabaseTime(db.dataSource.manager)); // fixed …
    await check.runOnce();
    machine.set((await readDatabaseTime(db.dataSource.manager)) - 3_000); // … then stepped 3 s behind
    await check.runOnce();
    expect(side.clockWatch.measure!.state).toBe('STOPPED');
    const [behind] = await clockSkews();
    expect(behind).toMatchObject({ count: 2, message: expect.stringMatching(/its clock is 3\d{3} ms behind the database's.*claims no runs/), data: expect.objectContaining({ state: 'STOPPED' }) });
    await check.runOnce(); // the same episode, the same way: nothing new
    expect((await clockSkews())[0].count).toBe(2);

    // Within one episode: from behind and stopped to behind and only skewed.
    machine.set((await readDatabaseTime(db.dataSource.manager)) - 1_000);
    await check.runOnce();
    expect(side.clockWatch.measure!.state).toBe('SKEWED');
    expect(await clockSkews()).toEqual([expect.objectContaining({ count: 3, message: expect.stringMatching(/ms behind the database's.*It schedules on the database's time/) })]);
  });

  it('an engine 1 s behind, within the stop bound: skewed (an alarm) but still claiming, on the database\'s time', async () => {
    const { clock, side, check } = await skewedEngine(-1_000, 60_000);
    await check.runOnce();
    const measure = side.clockWatch.measure!;
    expect(measure.state).toBe('SKEWED');
    expect(measure.offsetMs).toBeGreaterThanOrEqual(1_000);
    expectNotAhead(clock, measure);
    expect(side.clockWatch.mayClaim).toBe(true);
    expect((await db.dataSource.getRepository(AlarmEntity).find()).map((a) => a.type)).toEqual(['CLOCK_SKEW']);
  });
});

/** The clock applies the offset sure not to be ahead of the database's: at most the measured one, by no more than the round trip and the rounding. */
function expectNotAhead(clock: OffsetClock, measure: { offsetMs: number; uncertaintyMs: number }): void {
  expect(clock.offsetMs).toBeLessThanOrEqual(measure.offsetMs);
  expect(clock.offsetMs).toBeGreaterThanOrEqual(measure.offsetMs - 2 * measure.uncertaintyMs - READING_ROUNDING_MS - 1);
}
