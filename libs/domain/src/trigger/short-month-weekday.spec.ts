import { describe, expect, it } from 'vitest';
import { at, local } from '../testing/schedule-fixtures';
import { nextCronTime, parseCron } from './cron';

/**
 * `nW` against Quartz 2.3.2: each list is what CronExpression.getTimeAfter answered (measured by
 * hand with Debian's libquartz2-java, chaining each fire into the next search as a trigger does;
 * 60 years of 1W…31W, LW and month lists agreed in full).
 */
const fires = (expression: string, from: string, count: number, zone = 'UTC'): string[] => {
  const list: string[] = [];
  for (let t: number | null = at(from); list.length < count; ) {
    t = nextCronTime(expression, zone, t);
    if (t === null) break;
    list.push(local(t, zone));
  }
  return list;
};

describe('nW in a month shorter than n (Quartz: day n counts on into the next month)', () => {
  it("31W fires on a 30-day month's 30th when it is a Friday (1 July a Saturday), else not that month", () => {
    expect(fires('0 0 12 31W * ?', '2023-01-01T00:00:00Z', 8)).toEqual([
      '2023-01-31 12:00:00', '2023-03-31 12:00:00', '2023-05-31 12:00:00', '2023-06-30 12:00:00', // Friday
      '2023-07-31 12:00:00', '2023-08-31 12:00:00', '2023-10-31 12:00:00', '2023-12-29 12:00:00', // not 30 September (a Saturday), nor 30 November (a Thursday)
    ]);
    expect(fires('0 12 31W 6 *', '2023-01-01T00:00:00Z', 2)).toEqual(['2023-06-30 12:00:00', '2028-06-30 12:00:00']); // five fields
  });

  it('a quarter-end 31W: 30 June and 30 September only as Fridays', () => {
    expect(fires('0 0 12 31W 3,6,9,12 ?', '2023-01-01T00:00:00Z', 8)).toEqual([
      '2023-03-31 12:00:00', '2023-06-30 12:00:00', '2023-12-29 12:00:00', '2024-03-29 12:00:00',
      '2024-12-31 12:00:00', '2025-03-31 12:00:00', '2025-12-31 12:00:00', '2026-03-31 12:00:00',
    ]);
  });

  it('31W in 30-day months only, or 30W in February, fires (it matched no date before)', () => {
    expect(parseCron('0 0 12 31W 4,6,9,11 ?', 'UTC')).toMatchObject({ ok: true });
    expect(fires('0 0 12 31W 4,6,9,11 ?', '2000-01-01T00:00:00Z', 5)).toEqual(['2000-06-30 12:00:00', '2001-11-30 12:00:00', '2004-04-30 12:00:00', '2005-09-30 12:00:00', '2006-06-30 12:00:00']);
    expect(fires('0 0 12 30W 2 ?', '2000-01-01T00:00:00Z', 2)).toEqual(['2008-02-29 12:00:00', '2036-02-29 12:00:00']);
    // Day 31 counts on to 2 or 3 March: its Saturday's Friday is not in February either.
    expect(parseCron('0 0 12 31W 2 ?', 'UTC')).toMatchObject({ ok: false, error: 'NEVER_FIRES' });
  });

  it("29W: 28 February of a common year as a Friday; not when January fires too (from January's fire Quartz rolls past February)", () => {
    expect(fires('0 0 12 29W 2 ?', '2025-02-01T00:00:00Z', 3)).toEqual(['2025-02-28 12:00:00', '2028-02-29 12:00:00', '2031-02-28 12:00:00']);
    expect(fires('0 0 12 29W * ?', '2025-01-20T00:00:00Z', 3)).toEqual(['2025-01-29 12:00:00', '2025-03-28 12:00:00', '2025-04-29 12:00:00']);
    expect(fires('0 0 12 30W * ?', '2008-01-01T00:00:00Z', 2)).toEqual(['2008-01-30 12:00:00', '2008-03-31 12:00:00']);
  });

  it('in a zone, at its wall time', () => {
    expect(fires('0 30 9 31W 6 ?', '2023-01-01T00:00:00Z', 1, 'America/New_York')).toEqual(['2023-06-30 09:30:00']);
  });

  it('with a day of the week given too (Baton only: either day fires) it is left as it reads', () => {
    expect(fires('0 0 12 31W 6 MON', '2023-06-20T00:00:00Z', 2)).toEqual(['2023-06-26 12:00:00', '2024-06-03 12:00:00']);
  });
});

describe('the rest of W, as Quartz', () => {
  it('1W when the 1st is a Saturday fires on Monday the 3rd, never in the month before; on a Sunday, Monday the 2nd', () => {
    expect(fires('0 0 12 1W * ?', '2023-03-15T00:00:00Z', 3)).toEqual(['2023-04-03 12:00:00', '2023-05-01 12:00:00', '2023-06-01 12:00:00']);
    expect(fires('0 0 12 1W * ?', '2023-09-15T00:00:00Z', 1)).toEqual(['2023-10-02 12:00:00']);
  });

  it('LW fires on the last weekday: the Friday before a month ending on a weekend', () => {
    expect(fires('0 0 12 LW * ?', '2023-09-01T00:00:00Z', 1)).toEqual(['2023-09-29 12:00:00']); // 30 September, a Saturday
    expect(fires('0 0 12 LW * ?', '2024-03-01T00:00:00Z', 1)).toEqual(['2024-03-29 12:00:00']); // 31 March, a Sunday
    expect(fires('0 0 12 LW 2 ?', '2024-01-01T00:00:00Z', 1)).toEqual(['2024-02-29 12:00:00']);
  });
});
