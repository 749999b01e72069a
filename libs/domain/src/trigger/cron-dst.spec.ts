import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { RepeatedTimePolicy, SkippedTimePolicy, Trigger } from '../types';
import { at, schedule } from '../testing/schedule-fixtures';
import { canonicalCronTrigger, cronDstOf } from './cron-dst';
import { firstFireTime, nextFireTimes } from './next-fire';

/**
 * Daylight-saving policies of a cron trigger, in three zones and both directions (2026):
 * - Europe/London: 29 March 01:00 GMT → 02:00 BST (01:00–01:59 skipped); 25 October 02:00 BST → 01:00 GMT (01:00–01:59 twice).
 * - America/New_York: 8 March 02:00 EST → 03:00 EDT (02:00–02:59 skipped); 1 November 02:00 EDT → 01:00 EST (01:00–01:59 twice).
 * - Australia/Lord_Howe, a 30-minute shift: 4 October 02:00 → 02:30 (02:00–02:29 skipped); 5 April 02:00 → 01:30 (01:30–01:59 twice).
 * The defaults (ONCE_LATER, SKIP) are Quartz 2.3.2's, checked against it by hand with
 * CronExpression.getTimeAfter for each fixed-time case here, and by test/cli/import-quartz.e2e-spec.ts.
 */
type Dst = { repeatedTime?: RepeatedTimePolicy; skippedTime?: SkippedTimePolicy };

const cron = (expression: string, timeZone: string, dst: Dst = {}): Trigger => ({ kind: 'CRON', expression, timeZone, ...dst });
/** Local readings with their offsets, e.g. "2026-10-25 01:30:00+01:00". */
const fires = (trigger: Trigger, from: string, count: number): string[] => {
  const zone = trigger.kind === 'CRON' ? trigger.timeZone : 'UTC';
  return nextFireTimes(schedule(trigger), at(from), count).map((t) => DateTime.fromMillis(t, { zone }).toFormat('yyyy-MM-dd HH:mm:ssZZ'));
};

describe('a skipped local time (clocks go forward)', () => {
  it.each([
    // zone, expression, from, SKIP (default, Quartz), FIRE_LATE
    ['Europe/London', '0 30 1 * * *', '2026-03-28T12:00:00Z', ['2026-03-30 01:30:00+01:00', '2026-03-31 01:30:00+01:00'], ['2026-03-29 02:00:00+01:00', '2026-03-30 01:30:00+01:00']],
    ['America/New_York', '0 30 2 * * *', '2026-03-07T12:00:00Z', ['2026-03-09 02:30:00-04:00', '2026-03-10 02:30:00-04:00'], ['2026-03-08 03:00:00-04:00', '2026-03-09 02:30:00-04:00']],
    ['Australia/Lord_Howe', '0 15 2 * * *', '2026-10-03T00:00:00Z', ['2026-10-05 02:15:00+11:00', '2026-10-06 02:15:00+11:00'], ['2026-10-04 02:30:00+11:00', '2026-10-05 02:15:00+11:00']],
    // Hourly at :10: the skipped 01:10 (London) fires at 02:00 with FIRE_LATE, besides 02:10.
    ['Europe/London', '0 10 * * * *', '2026-03-28T23:30:00Z', ['2026-03-29 00:10:00+00:00', '2026-03-29 02:10:00+01:00', '2026-03-29 03:10:00+01:00'], ['2026-03-29 00:10:00+00:00', '2026-03-29 02:00:00+01:00', '2026-03-29 02:10:00+01:00']],
    // Every 20 minutes: the first instant after the gap is one of its own times; it fires there once.
    ['America/New_York', '0 */20 * * * *', '2026-03-08T06:30:00Z', ['2026-03-08 01:40:00-05:00', '2026-03-08 03:00:00-04:00', '2026-03-08 03:20:00-04:00'], ['2026-03-08 01:40:00-05:00', '2026-03-08 03:00:00-04:00', '2026-03-08 03:20:00-04:00']],
    ['Australia/Lord_Howe', '0 */10 * * * *', '2026-10-03T15:05:00Z', ['2026-10-04 01:40:00+10:30', '2026-10-04 01:50:00+10:30', '2026-10-04 02:30:00+11:00', '2026-10-04 02:40:00+11:00'], ['2026-10-04 01:40:00+10:30', '2026-10-04 01:50:00+10:30', '2026-10-04 02:30:00+11:00', '2026-10-04 02:40:00+11:00']],
    // Lord Howe's gap is half an hour: 02:29:59 is skipped, 01:59:59 is not.
    ['Australia/Lord_Howe', '59 29 2 * * *', '2026-10-03T00:00:00Z', ['2026-10-05 02:29:59+11:00'], ['2026-10-04 02:30:00+11:00']],
    ['Australia/Lord_Howe', '59 59 1 * * *', '2026-10-03T00:00:00Z', ['2026-10-04 01:59:59+10:30'], ['2026-10-04 01:59:59+10:30']],
  ])('%s %s', (zone, expression, from, skip, late) => {
    expect(fires(cron(expression, zone), from, skip.length)).toEqual(skip);
    expect(fires(cron(expression, zone, { skippedTime: 'SKIP' }), from, skip.length)).toEqual(skip);
    expect(fires(cron(expression, zone, { skippedTime: 'FIRE_LATE' }), from, late.length)).toEqual(late);
  });

  it('every 10 seconds: the gap costs its length in fires with SKIP, and with FIRE_LATE too (the first instant after it is an own time)', () => {
    const from = at('2026-03-29T00:00:00Z'); // 00:00 GMT, an hour before London's change
    for (const skippedTime of ['SKIP', 'FIRE_LATE'] as const) {
      const list = nextFireTimes(schedule(cron('*/10 * * * * *', 'Europe/London', { skippedTime })), from, 720);
      expect(list.at(-1)).toBe(from + 7_200_000); // two hours of instants, one fire every 10 s
      expect(new Set(list).size).toBe(720);
    }
  });
});

describe('a repeated local time (clocks go back)', () => {
  it.each([
    // zone, expression, from, ONCE_LATER (default, Quartz), ONCE_EARLIER, TWICE
    ['Europe/London', '0 30 1 * * *', '2026-10-24T12:00:00Z', ['2026-10-25 01:30:00+00:00', '2026-10-26 01:30:00+00:00'], ['2026-10-25 01:30:00+01:00', '2026-10-26 01:30:00+00:00'], ['2026-10-25 01:30:00+01:00', '2026-10-25 01:30:00+00:00', '2026-10-26 01:30:00+00:00']],
    ['America/New_York', '0 30 1 * * *', '2026-10-31T12:00:00Z', ['2026-11-01 01:30:00-05:00', '2026-11-02 01:30:00-05:00'], ['2026-11-01 01:30:00-04:00', '2026-11-02 01:30:00-05:00'], ['2026-11-01 01:30:00-04:00', '2026-11-01 01:30:00-05:00', '2026-11-02 01:30:00-05:00']],
    ['Australia/Lord_Howe', '0 45 1 * * *', '2026-04-04T00:00:00Z', ['2026-04-05 01:45:00+10:30', '2026-04-06 01:45:00+10:30'], ['2026-04-05 01:45:00+11:00', '2026-04-06 01:45:00+10:30'], ['2026-04-05 01:45:00+11:00', '2026-04-05 01:45:00+10:30', '2026-04-06 01:45:00+10:30']],
    // 01:15 is before Lord Howe's repeated half hour: it fires once whatever the policy.
    ['Australia/Lord_Howe', '0 15 1 * * *', '2026-04-04T00:00:00Z', ['2026-04-05 01:15:00+11:00'], ['2026-04-05 01:15:00+11:00'], ['2026-04-05 01:15:00+11:00', '2026-04-06 01:15:00+10:30']],
    ['America/New_York', '0 0 * * * *', '2026-11-01T03:30:00Z', ['2026-11-01 00:00:00-04:00', '2026-11-01 01:00:00-05:00', '2026-11-01 02:00:00-05:00'], ['2026-11-01 00:00:00-04:00', '2026-11-01 01:00:00-04:00', '2026-11-01 02:00:00-05:00'], ['2026-11-01 00:00:00-04:00', '2026-11-01 01:00:00-04:00', '2026-11-01 01:00:00-05:00', '2026-11-01 02:00:00-05:00']],
    ['Europe/London', '0 */30 * * * *', '2026-10-24T23:15:00Z', ['2026-10-25 00:30:00+01:00', '2026-10-25 01:00:00+00:00', '2026-10-25 01:30:00+00:00', '2026-10-25 02:00:00+00:00'], ['2026-10-25 00:30:00+01:00', '2026-10-25 01:00:00+01:00', '2026-10-25 01:30:00+01:00', '2026-10-25 02:00:00+00:00'], ['2026-10-25 00:30:00+01:00', '2026-10-25 01:00:00+01:00', '2026-10-25 01:30:00+01:00', '2026-10-25 01:00:00+00:00', '2026-10-25 01:30:00+00:00', '2026-10-25 02:00:00+00:00']],
    ['Australia/Lord_Howe', '0 */10 * * * *', '2026-04-04T14:15:00Z', ['2026-04-05 01:20:00+11:00', '2026-04-05 01:30:00+10:30', '2026-04-05 01:40:00+10:30', '2026-04-05 01:50:00+10:30', '2026-04-05 02:00:00+10:30'], ['2026-04-05 01:20:00+11:00', '2026-04-05 01:30:00+11:00', '2026-04-05 01:40:00+11:00', '2026-04-05 01:50:00+11:00', '2026-04-05 02:00:00+10:30'], ['2026-04-05 01:20:00+11:00', '2026-04-05 01:30:00+11:00', '2026-04-05 01:40:00+11:00', '2026-04-05 01:50:00+11:00', '2026-04-05 01:30:00+10:30', '2026-04-05 01:40:00+10:30', '2026-04-05 01:50:00+10:30', '2026-04-05 02:00:00+10:30']],
  ])('%s %s', (zone, expression, from, later, earlier, twice) => {
    expect(fires(cron(expression, zone), from, later.length)).toEqual(later);
    expect(fires(cron(expression, zone, { repeatedTime: 'ONCE_LATER' }), from, later.length)).toEqual(later);
    expect(fires(cron(expression, zone, { repeatedTime: 'ONCE_EARLIER' }), from, earlier.length)).toEqual(earlier);
    expect(fires(cron(expression, zone, { repeatedTime: 'TWICE' }), from, twice.length)).toEqual(twice);
  });

  it('from inside the first pass of the repeated hour: ONCE_LATER goes on at the start of the second pass, ONCE_EARLIER and TWICE within the first', () => {
    const from = '2026-11-01T05:35:00Z'; // 01:35 EDT, New York
    expect(fires(cron('0 */20 * * * *', 'America/New_York'), from, 2)).toEqual(['2026-11-01 01:00:00-05:00', '2026-11-01 01:20:00-05:00']);
    expect(fires(cron('0 */20 * * * *', 'America/New_York', { repeatedTime: 'ONCE_EARLIER' }), from, 2)).toEqual(['2026-11-01 01:40:00-04:00', '2026-11-01 02:00:00-05:00']);
    expect(fires(cron('0 */20 * * * *', 'America/New_York', { repeatedTime: 'TWICE' }), from, 2)).toEqual(['2026-11-01 01:40:00-04:00', '2026-11-01 01:00:00-05:00']);
  });

  it('from inside the second pass: ONCE_EARLIER goes on after the repeated hour', () => {
    expect(fires(cron('0 */20 * * * *', 'America/New_York', { repeatedTime: 'ONCE_EARLIER' }), '2026-11-01T06:05:00Z', 1)).toEqual(['2026-11-01 02:00:00-05:00']);
  });

  it.each([
    // Over the four hours of instants around London's change (00:00 BST to 03:00 GMT), every 10 seconds:
    ['ONCE_LATER', 3 * 360], // the first pass of 01:xx is dropped
    ['ONCE_EARLIER', 3 * 360], // the second pass is dropped
    ['TWICE', 4 * 360],
  ] as const)('every 10 seconds, %s: %i fires, each once, in order', (repeatedTime, count) => {
    const from = at('2026-10-24T23:00:00Z') - 1;
    const until = at('2026-10-25T03:00:00Z');
    const list = nextFireTimes(schedule(cron('*/10 * * * * *', 'Europe/London', { repeatedTime })), from, 5 * 360).filter((t) => t < until);
    expect(list).toHaveLength(count);
    expect(list.every((t, i) => i === 0 || t > list[i - 1])).toBe(true);
  });
});

describe('the policies and the rest of the trigger math', () => {
  it('firstFireTime is inclusive at a later occurrence', () => {
    const later = at('2026-11-01T06:30:00Z'); // 01:30 EST
    expect(firstFireTime(schedule(cron('0 30 1 * * *', 'America/New_York')), later)).toBe(later);
    expect(firstFireTime(schedule(cron('0 30 1 * * *', 'America/New_York', { repeatedTime: 'ONCE_EARLIER' })), later)).toBe(at('2026-11-02T06:30:00Z'));
  });

  it('a zone without daylight saving is untouched by the policies', () => {
    for (const dst of [{}, { repeatedTime: 'TWICE', skippedTime: 'FIRE_LATE' }] as Dst[]) {
      expect(fires(cron('0 30 2 * * *', 'Asia/Tokyo', dst), '2026-03-06T12:00:00Z', 2)).toEqual(['2026-03-07 02:30:00+09:00', '2026-03-08 02:30:00+09:00']);
    }
  });

  it('cronDstOf fills in the defaults (Quartz\'s); canonicalCronTrigger leaves defaults out', () => {
    expect(cronDstOf({ kind: 'CRON', expression: '0 0 * * *', timeZone: 'UTC' })).toEqual({ repeatedTime: 'ONCE_LATER', skippedTime: 'SKIP' });
    expect(cronDstOf({ kind: 'CRON', expression: '0 0 * * *', timeZone: 'UTC', repeatedTime: 'TWICE' })).toEqual({ repeatedTime: 'TWICE', skippedTime: 'SKIP' });
    expect(canonicalCronTrigger({ kind: 'CRON', expression: 'x', timeZone: 'UTC', repeatedTime: 'ONCE_LATER', skippedTime: 'FIRE_LATE' })).toEqual({ kind: 'CRON', expression: 'x', timeZone: 'UTC', skippedTime: 'FIRE_LATE' });
    expect(canonicalCronTrigger({ kind: 'CRON', expression: 'x', timeZone: 'UTC', repeatedTime: 'ONCE_EARLIER', skippedTime: 'SKIP' })).toEqual({ kind: 'CRON', expression: 'x', timeZone: 'UTC', repeatedTime: 'ONCE_EARLIER' });
  });
});
