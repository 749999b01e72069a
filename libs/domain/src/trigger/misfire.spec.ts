import { describe, expect, it } from 'vitest';
import type { MisfirePolicy, Schedule, Trigger } from '../types';
import { at, calendar, cron, iso, schedule } from '../testing/schedule-fixtures';
import { planFires } from './misfire';
import type { FirePlan, FirePlanInput } from './misfire';
import { nextFireTimes } from './next-fire';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const THRESHOLD = 5_000;
const T0 = at('2026-04-01T00:00:00Z'); // on both grids below
const POLICIES: MisfirePolicy[] = ['FIRE_ONCE_NOW', 'FIRE_ALL_MISSED', 'SKIP'];

const TRIGGERS: Array<[string, Trigger, Partial<Schedule>]> = [
  ['FIXED_RATE every minute', { kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0 }],
  ['CRON every minute', cron('0 * * * * *', 'Europe/Berlin'), {}],
];

function plan(overrides: Partial<FirePlanInput> & Pick<FirePlanInput, 'schedule' | 'misfirePolicy'>): FirePlan {
  return planFires({
    misfireThresholdMs: THRESHOLD,
    nextFireAt: T0,
    now: T0,
    lookAheadMs: 10_000,
    maxRuns: 1_000,
    ...overrides,
  });
}

/** Calls planFires until it has nothing more to do before `now + lookAhead`, like a planner loop would. */
function drain(input: FirePlanInput, maxCalls = 100) {
  const plans: FirePlan[] = [];
  let s = input.schedule;
  let next = input.nextFireAt;
  for (let i = 0; i < maxCalls; i++) {
    const p = planFires({ ...input, schedule: s, nextFireAt: next });
    plans.push(p);
    s = { ...s, fireCount: s.fireCount + p.firesConsumed };
    if (p.firesConsumed === 0 || p.nextFireAt === null) break;
    next = p.nextFireAt;
  }
  return plans;
}

describe('planFires — downtime of N periods', () => {
  for (const [label, trigger, extra] of TRIGGERS) {
    for (const n of [1, 5, 100]) {
      // The engines were down: fire times T0 … T0 + (n−1) min passed unplanned. Now it is 30 s
      // after the last of them; the next one (T0 + n min) is 30 s ahead, beyond the look-ahead.
      const now = T0 + (n - 1) * MINUTE + 30_000;
      const missed = Array.from({ length: n }, (_, i) => T0 + i * MINUTE);
      const nextRegular = T0 + n * MINUTE;

      describe(`${label}, N = ${n}`, () => {
        it('FIRE_ONCE_NOW: one run due now stands for all of them, scheduled at the latest missed time', () => {
          const p = plan({ schedule: schedule(trigger, extra), misfirePolicy: 'FIRE_ONCE_NOW', now });
          expect(p.fires).toEqual([{ scheduledAt: missed[n - 1], dueAt: now, kind: 'MISFIRE_NOW' }]);
          expect(p.skipped).toEqual([]);
          expect(p.nextFireAt).toBe(nextRegular);
          expect(p.firesConsumed).toBe(n);
        });

        it('FIRE_ALL_MISSED: every missed time gets a run due now, 40 per call, none lost or doubled', () => {
          const input: FirePlanInput = {
            schedule: schedule(trigger, extra),
            misfirePolicy: 'FIRE_ALL_MISSED',
            misfireThresholdMs: THRESHOLD,
            nextFireAt: T0,
            now,
            lookAheadMs: 10_000,
            maxRuns: 40,
          };
          const plans = drain(input);
          const fires = plans.flatMap((p) => p.fires);
          expect(fires.map((f) => f.scheduledAt)).toEqual(missed);
          expect(fires.every((f) => f.kind === 'MISSED' && f.dueAt === now)).toBe(true);
          expect(plans.every((p) => p.fires.length <= 40)).toBe(true);
          expect(plans.map((p) => p.fires.length).filter((c) => c > 0)).toHaveLength(Math.ceil(n / 40));
          expect(plans.reduce((sum, p) => sum + p.firesConsumed, 0)).toBe(n);
          expect(plans.at(-1)!.nextFireAt).toBe(nextRegular);
          if (n > 40) expect(plans[0].nextFireAt).toBe(T0 + 40 * MINUTE);
        });

        it('SKIP: every missed time is returned as skipped, none run, capped per call the same way', () => {
          const input: FirePlanInput = {
            schedule: schedule(trigger, extra),
            misfirePolicy: 'SKIP',
            misfireThresholdMs: THRESHOLD,
            nextFireAt: T0,
            now,
            lookAheadMs: 10_000,
            maxRuns: 40,
          };
          const plans = drain(input);
          expect(plans.flatMap((p) => p.fires)).toEqual([]);
          expect(plans.flatMap((p) => p.skipped)).toEqual(missed);
          expect(plans.every((p) => p.skipped.length <= 40)).toBe(true);
          expect(plans.at(-1)!.nextFireAt).toBe(nextRegular);
        });
      });
    }
  }
});

describe('planFires — on-time fires', () => {
  const rate = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0 });

  it('plans fire times up to now + lookAhead inclusive, each due at its own time', () => {
    const p = plan({ schedule: rate, misfirePolicy: 'SKIP', now: T0 - 1_000, lookAheadMs: 2 * MINUTE + 1_000 });
    expect(p.fires).toEqual([
      { scheduledAt: T0, dueAt: T0, kind: 'ON_TIME' },
      { scheduledAt: T0 + MINUTE, dueAt: T0 + MINUTE, kind: 'ON_TIME' },
      { scheduledAt: T0 + 2 * MINUTE, dueAt: T0 + 2 * MINUTE, kind: 'ON_TIME' },
    ]);
    expect(p.nextFireAt).toBe(T0 + 3 * MINUTE);
    expect(p.firesConsumed).toBe(3);
  });

  it('plans nothing when the next fire is beyond the look-ahead', () => {
    const p = plan({ schedule: rate, misfirePolicy: 'SKIP', now: T0 - 10_001, lookAheadMs: 10_000 });
    expect(p).toEqual({ fires: [], skipped: [], nextFireAt: T0, firesConsumed: 0 });
  });

  it('caps the fires of one call at maxRuns and resumes from the first unplanned one', () => {
    const p = plan({ schedule: rate, misfirePolicy: 'SKIP', now: T0, lookAheadMs: 10 * MINUTE, maxRuns: 3 });
    expect(p.fires.map((f) => f.scheduledAt)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(p.nextFireAt).toBe(T0 + 3 * MINUTE);
  });

  it('plans nothing and consumes nothing with maxRuns 0', () => {
    for (const policy of POLICIES) {
      const p = plan({ schedule: rate, misfirePolicy: policy, now: T0 + 10 * MINUTE, maxRuns: 0 });
      expect(p).toEqual({ fires: [], skipped: [], nextFireAt: T0, firesConsumed: 0 });
    }
  });

  it('puts the stand-in run first, then the on-time ones, within one maxRuns budget', () => {
    const now = T0 + 5 * MINUTE + 30_000;
    const p = plan({ schedule: rate, misfirePolicy: 'FIRE_ONCE_NOW', now, lookAheadMs: 2 * MINUTE, maxRuns: 2 });
    expect(p.fires).toEqual([
      { scheduledAt: T0 + 5 * MINUTE, dueAt: now, kind: 'MISFIRE_NOW' },
      { scheduledAt: T0 + 6 * MINUTE, dueAt: T0 + 6 * MINUTE, kind: 'ON_TIME' },
    ]);
    expect(p.nextFireAt).toBe(T0 + 7 * MINUTE);
    expect(p.firesConsumed).toBe(7);
  });
});

describe('planFires — misfire threshold boundary', () => {
  const rate = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0 });

  for (const policy of POLICIES) {
    it(`${policy}: late by exactly the threshold is on time, not a misfire`, () => {
      const p = plan({ schedule: rate, misfirePolicy: policy, now: T0 + THRESHOLD });
      expect(p.fires).toEqual([{ scheduledAt: T0, dueAt: T0, kind: 'ON_TIME' }]);
      expect(p.skipped).toEqual([]);
    });

    it(`${policy}: late by threshold + 1 ms is a misfire`, () => {
      const now = T0 + THRESHOLD + 1;
      const p = plan({ schedule: rate, misfirePolicy: policy, now });
      const expected = {
        FIRE_ONCE_NOW: { fires: [{ scheduledAt: T0, dueAt: now, kind: 'MISFIRE_NOW' }], skipped: [] },
        FIRE_ALL_MISSED: { fires: [{ scheduledAt: T0, dueAt: now, kind: 'MISSED' }], skipped: [] },
        SKIP: { fires: [], skipped: [T0] },
      }[policy];
      expect({ fires: p.fires, skipped: p.skipped }).toEqual(expected);
    });
  }

  it('with threshold 0, a fire due exactly now is on time and 1 ms late is a misfire', () => {
    expect(plan({ schedule: rate, misfirePolicy: 'SKIP', misfireThresholdMs: 0, now: T0 }).fires[0].kind).toBe('ON_TIME');
    expect(plan({ schedule: rate, misfirePolicy: 'SKIP', misfireThresholdMs: 0, now: T0 + 1 }).skipped).toEqual([T0]);
  });
});

describe('planFires — end time and maxFires inside the downtime', () => {
  const now = T0 + 10 * MINUTE;

  it('stops at an end time inside the downtime, and reports nothing left to plan', () => {
    const s = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0, endAt: T0 + 2 * MINUTE + 30_000 });
    const once = plan({ schedule: s, misfirePolicy: 'FIRE_ONCE_NOW', now });
    expect(once.fires).toEqual([{ scheduledAt: T0 + 2 * MINUTE, dueAt: now, kind: 'MISFIRE_NOW' }]);
    expect(once.nextFireAt).toBeNull();
    expect(once.firesConsumed).toBe(3);

    const all = plan({ schedule: s, misfirePolicy: 'FIRE_ALL_MISSED', now });
    expect(all.fires.map((f) => f.scheduledAt)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(all.nextFireAt).toBeNull();

    const skip = plan({ schedule: s, misfirePolicy: 'SKIP', now });
    expect(skip.skipped).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(skip.nextFireAt).toBeNull();
  });

  it('stops when maxFires is reached inside the downtime; the stand-in run is the last allowed time', () => {
    const s = schedule(cron('0 * * * * *'), { maxFires: 10, fireCount: 7 });
    const once = plan({ schedule: s, misfirePolicy: 'FIRE_ONCE_NOW', now });
    expect(once.fires).toEqual([{ scheduledAt: T0 + 2 * MINUTE, dueAt: now, kind: 'MISFIRE_NOW' }]);
    expect(once.firesConsumed).toBe(3);
    expect(once.nextFireAt).toBeNull();

    const all = plan({ schedule: s, misfirePolicy: 'FIRE_ALL_MISSED', now });
    expect(all.fires.map((f) => f.scheduledAt)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(all.nextFireAt).toBeNull();

    const skip = plan({ schedule: s, misfirePolicy: 'SKIP', now });
    expect(skip.skipped).toHaveLength(3);
    expect(skip.firesConsumed).toBe(3);
    expect(skip.nextFireAt).toBeNull();
  });

  it('plans nothing when maxFires was already reached', () => {
    const s = schedule(cron('0 * * * * *'), { maxFires: 3, fireCount: 3 });
    expect(plan({ schedule: s, misfirePolicy: 'FIRE_ALL_MISSED', now })).toEqual({
      fires: [],
      skipped: [],
      nextFireAt: null,
      firesConsumed: 0,
    });
  });
});

describe('planFires — exclusion calendar during the downtime', () => {
  // Daily 09:00 Berlin; down from 1 to 6 June; 2 June and 5 June are excluded.
  const s = schedule(cron('0 0 9 * * *', 'Europe/Berlin'), {
    calendar: calendar('Europe/Berlin', ['2026-06-02', '2026-06-05']),
  });
  const first = at('2026-06-01T07:00:00Z');
  const now = at('2026-06-05T12:00:00Z');
  const input = { schedule: s, nextFireAt: first, now, lookAheadMs: 10_000 };

  it('FIRE_ALL_MISSED runs only the non-excluded missed times, and excluded ones are not consumed', () => {
    const p = plan({ ...input, misfirePolicy: 'FIRE_ALL_MISSED' });
    expect(p.fires.map((f) => iso(f.scheduledAt))).toEqual(['2026-06-01T07:00:00Z', '2026-06-03T07:00:00Z', '2026-06-04T07:00:00Z']);
    expect(p.firesConsumed).toBe(3);
    expect(iso(p.nextFireAt)).toBe('2026-06-06T07:00:00Z');
  });

  it('FIRE_ONCE_NOW stands in at the latest non-excluded missed time', () => {
    const p = plan({ ...input, misfirePolicy: 'FIRE_ONCE_NOW' });
    expect(p.fires).toEqual([{ scheduledAt: at('2026-06-04T07:00:00Z'), dueAt: now, kind: 'MISFIRE_NOW' }]);
  });

  it('SKIP records only real fire times as skipped', () => {
    const p = plan({ ...input, misfirePolicy: 'SKIP' });
    expect(p.skipped.map(iso)).toEqual(['2026-06-01T07:00:00Z', '2026-06-03T07:00:00Z', '2026-06-04T07:00:00Z']);
  });

  it('moves a stored next fire time that the calendar now excludes', () => {
    const p = plan({ ...input, nextFireAt: at('2026-06-05T07:00:00Z'), now: at('2026-06-05T06:00:00Z'), lookAheadMs: 2 * DAY, misfirePolicy: 'SKIP' });
    expect(p.fires.map((f) => iso(f.scheduledAt))).toEqual(['2026-06-06T07:00:00Z']);
  });
});

describe('planFires — FIRE_ONCE_NOW over a very long downtime (scan budget)', () => {
  it('spreads the walk over several calls and still emits exactly one stand-in run', () => {
    const s = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0 });
    const now = T0 + 24 * MINUTE + 30_000; // 25 missed: T0 … T0 + 24 min
    const plans = drain({
      schedule: s,
      misfirePolicy: 'FIRE_ONCE_NOW',
      misfireThresholdMs: THRESHOLD,
      nextFireAt: T0,
      now,
      lookAheadMs: 10_000,
      maxRuns: 100,
      maxScan: 10,
    });
    const fires = plans.flatMap((p) => p.fires);
    expect(fires).toEqual([{ scheduledAt: T0 + 24 * MINUTE, dueAt: now, kind: 'MISFIRE_NOW' }]);
    // Calls before the one that emits it walk 9 missed times each and emit nothing.
    const emitting = plans.findIndex((p) => p.fires.length > 0);
    expect(emitting).toBe(2);
    expect(plans.slice(0, emitting).map((p) => p.firesConsumed)).toEqual([9, 9]);
    expect(plans.slice(0, emitting).map((p) => p.nextFireAt)).toEqual([T0 + 9 * MINUTE, T0 + 18 * MINUTE]);
    expect(plans.reduce((sum, p) => sum + p.firesConsumed, 0)).toBe(25);
    expect(plans.at(-1)!.nextFireAt).toBe(T0 + 25 * MINUTE);
  });
});

describe('planFires — kinds without a timeline', () => {
  it('plans nothing when the stored next fire time is null', () => {
    const p = plan({ schedule: schedule(cron('* * * * * *')), misfirePolicy: 'FIRE_ALL_MISSED', nextFireAt: null, now: T0 + DAY });
    expect(p).toEqual({ fires: [], skipped: [], nextFireAt: null, firesConsumed: 0 });
  });

  it('plans nothing for MANUAL', () => {
    const p = plan({ schedule: schedule({ kind: 'MANUAL' }), misfirePolicy: 'FIRE_ALL_MISSED', now: T0 + DAY });
    expect(p).toEqual({ fires: [], skipped: [], nextFireAt: null, firesConsumed: 0 });
  });

  it('plans the one stored FIXED_DELAY fire and leaves the next to the run finish', () => {
    const stored = T0 + 12_345;
    const s = schedule({ kind: 'FIXED_DELAY', delayMs: MINUTE }, { startAt: T0, fireCount: 4 });
    const p = plan({ schedule: s, misfirePolicy: 'FIRE_ONCE_NOW', nextFireAt: stored, now: stored, lookAheadMs: 10 * MINUTE });
    expect(p).toEqual({ fires: [{ scheduledAt: stored, dueAt: stored, kind: 'ON_TIME' }], skipped: [], nextFireAt: null, firesConsumed: 1 });
  });

  it('plans a missed ONCE fire by policy and then nothing more', () => {
    const s = schedule({ kind: 'ONCE', at: T0 });
    const now = T0 + DAY;
    expect(plan({ schedule: s, misfirePolicy: 'FIRE_ONCE_NOW', now }).fires).toEqual([{ scheduledAt: T0, dueAt: now, kind: 'MISFIRE_NOW' }]);
    const skip = plan({ schedule: s, misfirePolicy: 'SKIP', now });
    expect(skip).toEqual({ fires: [], skipped: [T0], nextFireAt: null, firesConsumed: 1 });
  });

  it('re-reads a stored time under an edited cron expression instead of trusting it', () => {
    // Stored for "every minute"; the task now fires every 5 minutes.
    const s = schedule(cron('0 */5 * * * *'));
    const p = plan({ schedule: s, misfirePolicy: 'SKIP', nextFireAt: T0 + MINUTE, now: T0, lookAheadMs: 10 * MINUTE });
    expect(p.fires.map((f) => f.scheduledAt)).toEqual([T0 + 5 * MINUTE, T0 + 10 * MINUTE]);
  });
});

describe('planFires — agrees with nextFireTimes', () => {
  it('plans exactly the fire times nextFireTimes lists, across repeated calls', () => {
    const s = schedule(cron('0 */7 * * * *', 'America/New_York'), { startAt: T0 });
    const expected = nextFireTimes(s, T0 - 1, 50);
    const horizon = expected[49] - T0;
    const plans = drain({
      schedule: s,
      misfirePolicy: 'SKIP',
      misfireThresholdMs: THRESHOLD,
      nextFireAt: expected[0],
      now: T0,
      lookAheadMs: horizon,
      maxRuns: 7,
    });
    expect(plans.flatMap((p) => p.fires.map((f) => f.scheduledAt))).toEqual(expected);
  });
});

describe('planFires — fire times that have a run already (taken)', () => {
  it('walks past them: neither planned nor counted again, so maxFires still reaches its last fire', () => {
    // 5 fires allowed, 2 counted; the cursor was given back to T0 behind fires at T0 + 1 and + 2 minutes planned since.
    const s = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0, maxFires: 5, fireCount: 2 });
    const p = plan({ schedule: s, misfirePolicy: 'FIRE_ONCE_NOW', lookAheadMs: 10 * MINUTE, taken: new Set([T0 + MINUTE, T0 + 2 * MINUTE]) });
    expect(p.fires.map((f) => f.scheduledAt - T0)).toEqual([0, 3 * MINUTE, 4 * MINUTE]);
    expect(p.firesConsumed).toBe(3);
    expect(p.nextFireAt).toBeNull();
  });

  it('a taken missed time is not a stand-in’s nor a skipped row', () => {
    for (const policy of POLICIES) {
      const s = schedule({ kind: 'FIXED_RATE', intervalMs: MINUTE }, { startAt: T0 });
      const p = plan({ schedule: s, misfirePolicy: policy, now: T0 + 2 * MINUTE + 1, lookAheadMs: 0, taken: new Set([T0 + MINUTE]) });
      const rows = [...p.fires.map((f) => f.scheduledAt), ...p.skipped];
      expect(rows, policy).not.toContain(T0 + MINUTE);
    }
  });
});
