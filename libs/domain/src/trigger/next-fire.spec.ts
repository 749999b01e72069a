import { describe, expect, it } from 'vitest';
import { at, calendar, consecutiveDates, cron, iso, local, schedule } from '../testing/schedule-fixtures';
import {
  firstFireTime,
  MAX_EXCLUDED_SKIPS,
  nextFireTime,
  nextFireTimes,
  nextFixedDelayFire,
  remainingFires,
} from './next-fire';
import { MissingAnchorError } from './missing-anchor-error';

const isos = (ms: number[]) => ms.map(iso);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function expectStrictlyIncreasing(times: number[]) {
  for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
}

/** The default daylight-saving policies (Quartz's) and the others, each case in cron-dst.spec.ts; here how they meet the rest of the trigger math. */
describe('nextFireTimes — CRON across DST', () => {
  describe('Europe/Berlin spring forward, 2026-03-29 (02:00 CET → 03:00 CEST)', () => {
    it('FIRE_LATE: runs a fixed-time job whose local time does not exist (02:30) once, at 03:00 CEST, right after the gap', () => {
      const fires = nextFireTimes(schedule(cron('0 30 2 * * *', 'Europe/Berlin', { skippedTime: 'FIRE_LATE' })), at('2026-03-28T12:00:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-03-29T01:00:00Z', '2026-03-30T00:30:00Z', '2026-03-31T00:30:00Z']);
      expect(local(fires[0], 'Europe/Berlin')).toBe('2026-03-29 03:00:00');
      expect(local(fires[1], 'Europe/Berlin')).toBe('2026-03-30 02:30:00');
    });

    it('SKIP (default): skips the nonexistent time', () => {
      const fires = nextFireTimes(schedule(cron('0 30 1,2 * * *', 'Europe/Berlin')), at('2026-03-28T12:00:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-03-29T00:30:00Z', '2026-03-29T23:30:00Z', '2026-03-30T00:30:00Z']);
      expect(fires.map((t) => local(t, 'Europe/Berlin'))).toEqual([
        '2026-03-29 01:30:00',
        '2026-03-30 01:30:00',
        '2026-03-30 02:30:00',
      ]);
    });

    it('keeps a daily 09:00 job at local 09:00 while the UTC offset changes from +1 to +2', () => {
      const fires = nextFireTimes(schedule(cron('0 0 9 * * *', 'Europe/Berlin')), at('2026-03-28T00:00:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-03-28T08:00:00Z', '2026-03-29T07:00:00Z', '2026-03-30T07:00:00Z']);
      for (const t of fires) expect(local(t, 'Europe/Berlin').endsWith(' 09:00:00')).toBe(true);
      // The day of the change is 23 hours long.
      expect(fires[1] - fires[0]).toBe(23 * HOUR);
    });

    it('runs hourly through the gap without a 02:00 fire and without a hole in real time', () => {
      const fires = nextFireTimes(schedule(cron('0 0 * * * *', 'Europe/Berlin')), at('2026-03-28T23:30:00Z'), 4);
      expect(isos(fires)).toEqual(['2026-03-29T00:00:00Z', '2026-03-29T01:00:00Z', '2026-03-29T02:00:00Z', '2026-03-29T03:00:00Z']);
      expect(fires.map((t) => local(t, 'Europe/Berlin').slice(11, 13))).toEqual(['01', '03', '04', '05']);
    });
  });

  describe('Europe/Berlin fall back, 2026-10-25 (03:00 CEST → 02:00 CET)', () => {
    it('TWICE: runs hourly at both occurrences of the repeated 02:00, monotonic and without duplicates', () => {
      const fires = nextFireTimes(schedule(cron('0 0 * * * *', 'Europe/Berlin', { repeatedTime: 'TWICE' })), at('2026-10-24T22:30:00Z'), 6);
      expect(isos(fires)).toEqual([
        '2026-10-24T23:00:00Z', // 01:00 CEST
        '2026-10-25T00:00:00Z', // 02:00 CEST
        '2026-10-25T01:00:00Z', // 02:00 CET, the repeat
        '2026-10-25T02:00:00Z', // 03:00 CET
        '2026-10-25T03:00:00Z',
        '2026-10-25T04:00:00Z',
      ]);
      expectStrictlyIncreasing(fires);
      expect(new Set(fires).size).toBe(fires.length);
      expect(fires.map((t) => local(t, 'Europe/Berlin').slice(11, 13))).toEqual(['01', '02', '02', '03', '04', '05']);
    });

    it('continues with the second pass when asked from inside the repeated hour', () => {
      const s = schedule(cron('0 0 * * * *', 'Europe/Berlin', { repeatedTime: 'TWICE' }));
      expect(iso(nextFireTime(s, at('2026-10-25T00:30:00Z')))).toBe('2026-10-25T01:00:00Z');
    });

    it('ONCE_EARLIER: runs a fixed-time job in the repeated hour once, at the first occurrence', () => {
      const s = schedule(cron('0 30 2 * * *', 'Europe/Berlin', { repeatedTime: 'ONCE_EARLIER' }));
      const fires = nextFireTimes(s, at('2026-10-24T12:00:00Z'), 2);
      expect(isos(fires)).toEqual(['2026-10-25T00:30:00Z', '2026-10-26T01:30:00Z']);
      // Asked between the two occurrences, it does not fire again at 02:30 CET (01:30Z).
      expect(iso(nextFireTime(s, at('2026-10-25T00:45:00Z')))).toBe('2026-10-26T01:30:00Z');
    });

    it('keeps a daily 09:00 job at local 09:00 (25-hour day)', () => {
      const fires = nextFireTimes(schedule(cron('0 0 9 * * *', 'Europe/Berlin')), at('2026-10-24T00:00:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-10-24T07:00:00Z', '2026-10-25T08:00:00Z', '2026-10-26T08:00:00Z']);
      expect(fires[1] - fires[0]).toBe(25 * HOUR);
    });
  });

  describe('America/New_York spring forward, 2026-03-08 (02:00 EST → 03:00 EDT)', () => {
    it('FIRE_LATE: runs a fixed-time 02:30 job at 03:00 EDT on the day of the gap', () => {
      const fires = nextFireTimes(schedule(cron('0 30 2 * * *', 'America/New_York', { skippedTime: 'FIRE_LATE' })), at('2026-03-07T12:00:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-03-08T07:00:00Z', '2026-03-09T06:30:00Z', '2026-03-10T06:30:00Z']);
      expect(local(fires[0], 'America/New_York')).toBe('2026-03-08 03:00:00');
    });

    it('FIRE_LATE: does not fire again at 03:00 when asked from inside the gap day after the shifted fire', () => {
      const s = schedule(cron('0 30 2 * * *', 'America/New_York', { skippedTime: 'FIRE_LATE' }));
      expect(iso(nextFireTime(s, at('2026-03-08T07:00:00Z')))).toBe('2026-03-09T06:30:00Z');
    });

    it('runs hourly with no 02:00 and an hour-long step from 01:00 EST to 03:00 EDT', () => {
      const fires = nextFireTimes(schedule(cron('0 0 * * * *', 'America/New_York')), at('2026-03-08T05:30:00Z'), 3);
      expect(isos(fires)).toEqual(['2026-03-08T06:00:00Z', '2026-03-08T07:00:00Z', '2026-03-08T08:00:00Z']);
      expect(fires.map((t) => local(t, 'America/New_York').slice(11, 13))).toEqual(['01', '03', '04']);
    });

    it('keeps a daily 09:00 job at local 09:00', () => {
      const fires = nextFireTimes(schedule(cron('0 9 * * *', 'America/New_York')), at('2026-03-07T00:00:00Z'), 2);
      expect(isos(fires)).toEqual(['2026-03-07T14:00:00Z', '2026-03-08T13:00:00Z']);
    });
  });

  describe('America/New_York fall back, 2026-11-01 (02:00 EDT → 01:00 EST)', () => {
    it('TWICE: runs hourly at both occurrences of the repeated 01:00', () => {
      const fires = nextFireTimes(schedule(cron('0 0 * * * *', 'America/New_York', { repeatedTime: 'TWICE' })), at('2026-11-01T03:30:00Z'), 5);
      expect(isos(fires)).toEqual([
        '2026-11-01T04:00:00Z', // 00:00 EDT
        '2026-11-01T05:00:00Z', // 01:00 EDT
        '2026-11-01T06:00:00Z', // 01:00 EST, the repeat
        '2026-11-01T07:00:00Z', // 02:00 EST
        '2026-11-01T08:00:00Z',
      ]);
      expectStrictlyIncreasing(fires);
      expect(fires.map((t) => local(t, 'America/New_York').slice(11, 13))).toEqual(['00', '01', '01', '02', '03']);
    });

    it('ONCE_EARLIER: runs a fixed-time 01:30 job once, at the first (EDT) occurrence', () => {
      const fires = nextFireTimes(schedule(cron('0 30 1 * * *', 'America/New_York', { repeatedTime: 'ONCE_EARLIER' })), at('2026-10-31T12:00:00Z'), 2);
      expect(isos(fires)).toEqual(['2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z']);
    });

    it('keeps a daily 09:00 job at local 09:00', () => {
      const fires = nextFireTimes(schedule(cron('0 0 9 * * *', 'America/New_York')), at('2026-10-31T00:00:00Z'), 2);
      expect(isos(fires)).toEqual(['2026-10-31T13:00:00Z', '2026-11-01T14:00:00Z']);
    });
  });
});

describe('nextFireTimes — CRON basics', () => {
  it('reads a 5-field expression with second 0', () => {
    const fires = nextFireTimes(schedule(cron('*/15 * * * *')), at('2026-01-01T00:00:00Z'), 2);
    expect(isos(fires)).toEqual(['2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z']);
  });

  it('honours the seconds field of a 6-field expression', () => {
    const fires = nextFireTimes(schedule(cron('*/20 * * * * *')), at('2026-01-01T00:00:00Z'), 3);
    expect(isos(fires)).toEqual(['2026-01-01T00:00:20Z', '2026-01-01T00:00:40Z', '2026-01-01T00:01:00Z']);
  });

  it('is strictly after `after`, also for a sub-second `after`', () => {
    const s = schedule(cron('* * * * * *'));
    expect(iso(nextFireTime(s, at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T00:00:01Z');
    expect(iso(nextFireTime(s, at('2026-01-01T00:00:00.500Z')))).toBe('2026-01-01T00:00:01Z');
    expect(iso(nextFireTime(s, at('2026-01-01T00:00:00.999Z')))).toBe('2026-01-01T00:00:01Z');
  });

  it('returns at most `limit` fires and none for a limit of 0', () => {
    const s = schedule(cron('* * * * *'));
    expect(nextFireTimes(s, 0, 7)).toHaveLength(7);
    expect(nextFireTimes(s, 0, 0)).toEqual([]);
  });

  it('refuses an infinite limit, which could never return', () => {
    expect(() => nextFireTimes(schedule(cron('* * * * *')), 0, Infinity)).toThrow(RangeError);
  });
});

describe('nextFireTimes — start, end and maxFires', () => {
  const hourly = cron('0 0 * * * *');

  it('includes a fire exactly at startAt and nothing before it', () => {
    const s = schedule(hourly, { startAt: at('2026-01-01T05:00:00Z') });
    expect(iso(nextFireTime(s, at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T05:00:00Z');
  });

  it('rounds a startAt between fire times up to the next fire time', () => {
    const s = schedule(hourly, { startAt: at('2026-01-01T05:00:00.001Z') });
    expect(iso(nextFireTime(s, at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T06:00:00Z');
  });

  it('includes a fire exactly at endAt (inclusive end) and nothing after it', () => {
    const s = schedule(hourly, { endAt: at('2026-01-01T03:00:00Z') });
    expect(isos(nextFireTimes(s, at('2026-01-01T00:30:00Z'), 10))).toEqual([
      '2026-01-01T01:00:00Z',
      '2026-01-01T02:00:00Z',
      '2026-01-01T03:00:00Z',
    ]);
    expect(nextFireTime(s, at('2026-01-01T03:00:00Z'))).toBeNull();
  });

  it('returns only the fires left under maxFires', () => {
    const s = schedule(hourly, { maxFires: 5, fireCount: 3 });
    expect(nextFireTimes(s, at('2026-01-01T00:30:00Z'), 10)).toHaveLength(2);
    expect(remainingFires(s)).toBe(2);
  });

  it('returns nothing once maxFires is reached', () => {
    const s = schedule(hourly, { maxFires: 5, fireCount: 5 });
    expect(nextFireTimes(s, 0, 10)).toEqual([]);
    expect(nextFireTime(s, 0)).toBeNull();
    expect(remainingFires(s)).toBe(0);
  });

  it('counts no limit as Infinity', () => {
    expect(remainingFires(schedule(hourly))).toBe(Infinity);
  });
});

describe('nextFireTimes — exclusion calendar', () => {
  it('skips a fire whose local date in the calendar zone is excluded, though its UTC date is not', () => {
    // 23:30 UTC on 24 December is 00:30 on 25 December in Berlin.
    const s = schedule(cron('0 30 23 * * *', 'UTC'), { calendar: calendar('Europe/Berlin', ['2026-12-25']) });
    expect(isos(nextFireTimes(s, at('2026-12-23T00:00:00Z'), 3))).toEqual([
      '2026-12-23T23:30:00Z',
      '2026-12-25T23:30:00Z', // 26 December in Berlin
      '2026-12-26T23:30:00Z',
    ]);
  });

  it('keeps a fire whose UTC date is excluded but whose local date is not', () => {
    // 02:00 UTC on 4 July is 22:00 on 3 July in New York.
    const s = schedule(cron('0 0 2 * * *', 'UTC'), { calendar: calendar('America/New_York', ['2026-07-04']) });
    expect(isos(nextFireTimes(s, at('2026-07-03T12:00:00Z'), 2))).toEqual(['2026-07-04T02:00:00Z', '2026-07-06T02:00:00Z']);
  });

  it('does not count excluded fires toward maxFires', () => {
    const s = schedule(cron('0 0 9 * * *', 'Europe/Berlin'), {
      maxFires: 2,
      calendar: calendar('Europe/Berlin', ['2026-05-01', '2026-05-02']),
    });
    expect(isos(nextFireTimes(s, at('2026-04-30T12:00:00Z'), 10))).toEqual(['2026-05-03T07:00:00Z', '2026-05-04T07:00:00Z']);
  });

  it('skips every fire of an excluded day, however often the trigger fires', () => {
    const s = schedule(cron('0 */5 * * * *', 'Europe/Berlin'), { calendar: calendar('Europe/Berlin', ['2026-06-10']) });
    // 23:55 local on the 9th, then the next is midnight local on the 11th.
    expect(isos(nextFireTimes(s, at('2026-06-09T21:50:00Z'), 2))).toEqual(['2026-06-09T21:55:00Z', '2026-06-10T22:00:00Z']);
  });

  it('finds the first fire after a long excluded stretch (a whole year)', () => {
    const dates = consecutiveDates('2026-01-01', 365);
    const s = schedule(cron('0 0 12 * * *'), { calendar: calendar('UTC', dates) });
    expect(iso(nextFireTime(s, at('2025-12-31T13:00:00Z')))).toBe('2027-01-01T12:00:00Z');
  });

  it('still finds a fire after exactly MAX_EXCLUDED_SKIPS excluded fire days in a row', () => {
    const dates = consecutiveDates('2026-01-01', MAX_EXCLUDED_SKIPS);
    const s = schedule(cron('0 0 12 * * *'), { calendar: calendar('UTC', dates) });
    const firstFree = at('2026-01-01T12:00:00Z') + MAX_EXCLUDED_SKIPS * DAY;
    expect(nextFireTime(s, at('2025-12-31T13:00:00Z'))).toBe(firstFree);
  });

  it('gives up (no further fire) after MAX_EXCLUDED_SKIPS excluded fire days in a row', () => {
    const dates = consecutiveDates('2026-01-01', MAX_EXCLUDED_SKIPS + 2);
    const s = schedule(cron('0 0 12 * * *'), { calendar: calendar('UTC', dates) });
    expect(nextFireTime(s, at('2025-12-31T13:00:00Z'))).toBeNull();
  });

  it('stops at endAt even while skipping excluded days', () => {
    const s = schedule(cron('0 0 12 * * *'), {
      calendar: calendar('UTC', consecutiveDates('2026-01-01', 100)),
      endAt: at('2026-02-01T00:00:00Z'),
    });
    expect(nextFireTime(s, at('2025-12-31T13:00:00Z'))).toBeNull();
  });
});

describe('nextFireTimes — FIXED_RATE', () => {
  const T0 = at('2026-01-01T00:00:00.250Z');
  const rate = (intervalMs: number) => ({ kind: 'FIXED_RATE' as const, intervalMs });

  it('fires at startAt + k × interval, starting with startAt itself', () => {
    const s = schedule(rate(MINUTE), { startAt: T0 });
    expect(nextFireTimes(s, T0 - 1, 3)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
  });

  it('stays on the grid when asked between fire times, however late', () => {
    const s = schedule(rate(MINUTE), { startAt: T0 });
    expect(nextFireTimes(s, T0 + 90_000, 2)).toEqual([T0 + 2 * MINUTE, T0 + 3 * MINUTE]);
    const late = T0 + 1_000_000 * MINUTE + 1;
    expect(nextFireTime(s, late)).toBe(T0 + 1_000_001 * MINUTE);
  });

  it('is strictly after a fire time it is asked from', () => {
    const s = schedule(rate(MINUTE), { startAt: T0 });
    expect(nextFireTime(s, T0)).toBe(T0 + MINUTE);
  });

  it('anchors at createdAt when startAt is null', () => {
    const s = schedule(rate(MINUTE), { createdAt: T0 });
    expect(nextFireTimes(s, T0 + 1, 2)).toEqual([T0 + MINUTE, T0 + 2 * MINUTE]);
  });

  it('fails loudly on a non-positive interval instead of looping on NaN', () => {
    expect(() => nextFireTime(schedule(rate(0), { startAt: T0 }), T0)).toThrow(RangeError);
    expect(() => nextFireTime(schedule(rate(-5), { startAt: T0 }), T0)).toThrow(RangeError);
  });

  it('refuses to guess an anchor when neither startAt nor createdAt is set', () => {
    expect(() => nextFireTime(schedule(rate(MINUTE)), 0)).toThrow(MissingAnchorError);
  });

  it('stops at an inclusive endAt', () => {
    const s = schedule(rate(MINUTE), { startAt: T0, endAt: T0 + 2 * MINUTE });
    expect(nextFireTimes(s, 0, 10)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
  });

  it('skips an excluded day and resumes on the same grid', () => {
    const anchor = at('2026-03-01T00:20:00Z');
    const s = schedule(rate(7 * HOUR), { startAt: anchor, calendar: calendar('UTC', ['2026-03-02']) });
    const fires = nextFireTimes(s, anchor - 1, 5);
    expect(isos(fires)).toEqual([
      '2026-03-01T00:20:00Z',
      '2026-03-01T07:20:00Z',
      '2026-03-01T14:20:00Z',
      '2026-03-01T21:20:00Z',
      // 2 March: 04:20, 11:20, 18:20 are excluded
      '2026-03-03T01:20:00Z',
    ]);
    for (const t of fires) expect((t - anchor) % (7 * HOUR)).toBe(0);
  });
});

describe('nextFireTimes — ONCE, MANUAL', () => {
  const AT = at('2026-05-05T05:05:05Z');
  const once = { kind: 'ONCE' as const, at: AT };

  it('fires once at `at` when it is after `after`', () => {
    expect(nextFireTimes(schedule(once), AT - 1, 5)).toEqual([AT]);
  });

  it('does not fire when `at` is not after `after`', () => {
    expect(nextFireTimes(schedule(once), AT, 5)).toEqual([]);
  });

  it('does not fire again once it has fired, even with maxFires unset or larger', () => {
    expect(nextFireTimes(schedule(once, { fireCount: 1 }), 0, 5)).toEqual([]);
    expect(nextFireTimes(schedule(once, { fireCount: 1, maxFires: 3 }), 0, 5)).toEqual([]);
  });

  it('does not fire outside startAt..endAt or on an excluded date', () => {
    expect(nextFireTime(schedule(once, { startAt: AT + 1 }), 0)).toBeNull();
    expect(nextFireTime(schedule(once, { endAt: AT - 1 }), 0)).toBeNull();
    expect(nextFireTime(schedule(once, { endAt: AT }), 0)).toBe(AT);
    expect(nextFireTime(schedule(once, { calendar: calendar('UTC', ['2026-05-05']) }), 0)).toBeNull();
  });

  it('MANUAL never fires by itself', () => {
    expect(nextFireTimes(schedule({ kind: 'MANUAL' }), 0, 10)).toEqual([]);
    expect(firstFireTime(schedule({ kind: 'MANUAL' }), 0)).toBeNull();
  });
});

describe('firstFireTime (inclusive)', () => {
  it('includes a fire exactly at notBefore, unlike nextFireTime', () => {
    const T = at('2026-01-01T10:00:00Z');
    const s = schedule(cron('0 0 * * * *'));
    expect(firstFireTime(s, T)).toBe(T);
    expect(nextFireTime(s, T)).toBe(T + HOUR);
  });

  it('fires a FIXED_RATE task anchored at creation at the creation instant', () => {
    const created = at('2026-01-01T10:00:00.123Z');
    expect(firstFireTime(schedule({ kind: 'FIXED_RATE', intervalMs: 1000 }, { createdAt: created }), created)).toBe(created);
  });

  it('returns null when maxFires is reached', () => {
    expect(firstFireTime(schedule(cron('* * * * *'), { maxFires: 1, fireCount: 1 }), 0)).toBeNull();
  });
});

describe('FIXED_DELAY', () => {
  const START = at('2026-02-02T10:00:00Z');
  const delay = { kind: 'FIXED_DELAY' as const, delayMs: 30 * MINUTE };

  it('fires first at startAt', () => {
    expect(nextFixedDelayFire(schedule(delay, { startAt: START }), null)).toBe(START);
    expect(nextFireTimes(schedule(delay, { startAt: START }), 0, 5)).toEqual([START]);
  });

  it('fires first at the creation time when startAt is null', () => {
    expect(nextFixedDelayFire(schedule(delay, { createdAt: START }), null)).toBe(START);
  });

  it('fires delayMs after the previous run finished', () => {
    const finished = START + 7 * MINUTE + 123;
    expect(nextFixedDelayFire(schedule(delay, { startAt: START, fireCount: 1 }), finished)).toBe(finished + 30 * MINUTE);
  });

  it('lists no fires in advance after the first (they depend on finish times)', () => {
    expect(nextFireTimes(schedule(delay, { startAt: START, fireCount: 1 }), 0, 5)).toEqual([]);
    expect(nextFireTimes(schedule(delay, { startAt: START }), START, 5)).toEqual([]);
  });

  it('moves a fire on an excluded day along the delay grid to the next allowed day', () => {
    const finished = at('2026-02-02T23:50:00Z');
    const s = schedule(delay, { startAt: START, fireCount: 1, calendar: calendar('UTC', ['2026-02-03']) });
    // finished + 30 min is on the 3rd; the first grid point on the 4th is finished + 49 × 30 min.
    expect(iso(nextFixedDelayFire(s, finished))).toBe('2026-02-04T00:20:00Z');
    expect(nextFixedDelayFire(s, finished)! - finished).toBe(49 * 30 * MINUTE);
  });

  it('respects endAt and maxFires', () => {
    const finished = START + HOUR;
    expect(nextFixedDelayFire(schedule(delay, { startAt: START, endAt: finished + 29 * MINUTE, fireCount: 1 }), finished)).toBeNull();
    expect(nextFixedDelayFire(schedule(delay, { startAt: START, endAt: finished + 30 * MINUTE, fireCount: 1 }), finished)).toBe(
      finished + 30 * MINUTE,
    );
    expect(nextFixedDelayFire(schedule(delay, { startAt: START, maxFires: 2, fireCount: 2 }), finished)).toBeNull();
  });

  it('waits for a startAt moved into the future', () => {
    const later = START + DAY;
    expect(nextFixedDelayFire(schedule(delay, { startAt: later, fireCount: 1 }), START)).toBe(later);
  });

  it('is only for FIXED_DELAY triggers', () => {
    expect(() => nextFixedDelayFire(schedule(cron('* * * * *')), null)).toThrow(TypeError);
  });
});
