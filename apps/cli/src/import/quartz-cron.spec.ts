import { describe, expect, it } from 'vitest';
import { nextFireTimes, parseCron } from '@baton/domain';
import { translateQuartzCron } from './quartz-cron';

const translated = (quartz: string, zone = 'UTC') => {
  const result = translateQuartzCron(quartz, zone);
  if (!result.ok) throw new Error(result.reason);
  return result;
};

describe('translateQuartzCron', () => {
  it.each([
    ['0 0 12 ? * 1', '0 0 12 * * 0'], // Quartz 1 = Sunday, Baton 0
    ['0 0 12 ? * 7', '0 0 12 * * 6'],
    ['0 0 12 ? * 2-6', '0 0 12 * * 1,2,3,4,5'],
    ['0 0 12 ? * MON-FRI', '0 0 12 * * 1,2,3,4,5'],
    ['0 0 12 ? * FRI-MON', '0 0 12 * * 0,1,5,6'], // a range through Saturday
    ['0 0 12 ? * 1/2', '0 0 12 * * 0,2,4,6'], // a step runs to Saturday, never to a second Sunday
    ['0 0 12 ? * 2,SAT', '0 0 12 * * 1,6'],
    ['0 0 12 ? * 6#3', '0 0 12 * * 5#3'],
    ['0 0 12 ? * FRI#1', '0 0 12 * * 5#1'],
    ['0 0 12 ? * 6L', '0 0 12 * * 5L'],
    ['0 0 12 ? * L', '0 0 12 * * 6'], // L alone: Saturday
    ['0 0 12 L * ?', '0 0 12 L * *'],
    ['0 0 12 LW * ?', '0 0 12 LW * *'],
    ['0 0 12 15W * ?', '0 0 12 15W * *'],
    ['0 0/15 * * * ?', '0 0-59/15 * * * *'], // a/n is written out as a range
    ['5/20 * 8/4 1/10 2/3 ?', '5-59/20 * 8-23/4 1-31/10 2-12/3 *'],
    ['0 0 12 * JAN,JUL ?', '0 0 12 * JAN,JUL *'],
    ['0 0 12 ? * * *', '0 0 12 * * *'],
  ])('%s → %s', (quartz, baton) => {
    const result = translated(quartz);
    expect(result.expression).toBe(baton);
    expect(parseCron(result.expression, 'UTC')).toMatchObject({ ok: true });
  });

  it('a day-of-month list with a W keeps Quartz\'s fires: the nearest weekday of its smallest day, with a note', () => {
    expect(translated('0 0 9 1W,15W * ?')).toMatchObject({ expression: '0 0 9 1W * *', note: expect.stringContaining('imported as "1W"') });
    expect(translated('0 0 9 20,3W * ?')).toMatchObject({ expression: '0 0 9 3W * *' });
    expect(translated('0 0 9 15W * ?').note).toBeUndefined();
    expect(translated('0 0 9 1,15 * ?').note).toBeUndefined();
    // 2026-08-01 is a Saturday: Quartz's 1W fires on Monday the 3rd, and its 15W (the 14th) never.
    const schedule = { trigger: { kind: 'CRON' as const, expression: translated('0 0 9 1W,15W 8 ?').expression, timeZone: 'UTC' }, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null, createdAt: 0 };
    expect(nextFireTimes(schedule, Date.parse('2026-07-31T00:00:00Z'), 2).map((t) => new Date(t).toISOString())).toEqual(['2026-08-03T09:00:00.000Z', '2027-08-02T09:00:00.000Z']);
  });

  it('a year field becomes start and end bounds in the time zone', () => {
    expect(translated('0 0 6 1 1 ? 2028-2030', 'Europe/Berlin')).toMatchObject({ notBefore: Date.parse('2027-12-31T23:00:00Z'), notAfter: Date.parse('2030-12-31T23:00:00Z') - 1 });
    expect(translated('0 0 6 1 1 ? 2029', 'UTC')).toMatchObject({ notBefore: Date.parse('2029-01-01T00:00:00Z'), notAfter: Date.parse('2030-01-01T00:00:00Z') - 1 });
  });

  it.each([
    ['0 0 12 L-3 * ?', /L-3/],
    ['0 0 12 * * ? 2028,2030', /year field/],
    ['0 0 12 * * ? */2', /year field/],
    ['0 0 12 * *', /5 fields/],
    ['0 0 12 ? * 8', /day-of-week/],
    // Rows no Quartz would have written (edited by hand): listed, not thrown at the import.
    ['99 0 0 * * ?', /^"99 0 0 \* \* \?" is not a cron Baton can read: invalid cron expression: .*second: 99/],
    ['0 0 25 * * ?', /is not a cron Baton can read: .*hour/],
    // Day fields Quartz 2.3.2's CronExpression refuses (its messages): such a cron never fired there.
    ['0 0 9 1 * 2', /^"0 0 9 1 \* 2": Quartz's CronExpression refuses it \("Support for specifying both a day-of-week AND a day-of-month parameter is not implemented\."\), so it never fired there$/],
    ['0 0 9 * * *', /both a day-of-week AND a day-of-month/],
    ['0 0 9 1-5 * MON', /both a day-of-week AND a day-of-month/],
    ['0 0 9 ? * ?', /'\?' can only be specified for Day-of-Month -OR- Day-of-Week/],
    ['0 0 9 1,15,L * ?', /'L' and 'LW' with other days of the month/],
    ['0 0 9 15,LW * ?', /'L' and 'LW' with other days of the month/],
    ['0 0 9 ? * 2,6L', /'L' with other days of the week/],
    ['0 0 9 1-5,15W * ?', /a W in a list of ranges or steps/],
  ])('refuses %s with the reason', (quartz, reason) => {
    const result = translateQuartzCron(quartz, 'UTC');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('the last Friday and the third Friday fire on the right dates', () => {
    const schedule = (expression: string) => ({ trigger: { kind: 'CRON' as const, expression, timeZone: 'UTC' }, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null, createdAt: 0 });
    const iso = (ts: number[]) => ts.map((t) => new Date(t).toISOString().slice(0, 10));
    expect(iso(nextFireTimes(schedule(translated('0 0 12 ? * 6L').expression), Date.parse('2027-01-01T00:00:00Z'), 3))).toEqual(['2027-01-29', '2027-02-26', '2027-03-26']);
    expect(iso(nextFireTimes(schedule(translated('0 0 12 ? * 6#3').expression), Date.parse('2027-01-01T00:00:00Z'), 2))).toEqual(['2027-01-15', '2027-02-19']);
  });
});
