import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { REPEATED_TIME_POLICIES, SKIPPED_TIME_POLICIES, type DstMark, type Millis, type RepeatedTimePolicy, type SkippedTimePolicy, type Trigger } from '../types';
import { at, cron, schedule } from '../testing/schedule-fixtures';
import { compileCron } from './cron';
import { dstMarks } from './dst-marks';
import { nextFireTimes } from './next-fire';

/**
 * The preview's marks (2026's changes, as cron-dst.spec.ts): London 29 March 01:00 GMT → 02:00 BST
 * and 25 October 02:00 BST → 01:00 GMT; New York 8 March 02:00 EST → 03:00 EDT and 1 November
 * 02:00 EDT → 01:00 EST; Lord Howe 4 October 02:00 → 02:30 and 5 April 02:00 → 01:30.
 */
type CronTrigger = Extract<Trigger, { kind: 'CRON' }>;
type Dst = { repeatedTime?: RepeatedTimePolicy; skippedTime?: SkippedTimePolicy };

/** Each fire's local reading and offset, followed by its mark if it has one. */
const marked = (trigger: Trigger, from: string, count: number): string[] => {
  const { timeZone } = trigger as CronTrigger;
  const list = nextFireTimes(schedule(trigger), at(from), count);
  const marks = dstMarks(trigger as CronTrigger, at(from), list);
  return list.map((t, i) => [DateTime.fromMillis(t, { zone: timeZone }).toFormat('yyyy-MM-dd HH:mm:ssZZ'), marks[i]].filter((s) => s !== null).join(' '));
};

describe('dstMarks: a skipped local time', () => {
  it.each([
    // zone, expression, from, SKIP (default), FIRE_LATE
    // Hourly: the first instant after the gap is the cron's own 02:00; both policies fire there once, and the mark says what became of 01:00.
    ['Europe/London', '0 0 * * * *', '2026-03-28T23:30:00Z', ['2026-03-29 00:00:00+00:00', '2026-03-29 02:00:00+01:00 AFTER_SKIPPED', '2026-03-29 03:00:00+01:00'], ['2026-03-29 00:00:00+00:00', '2026-03-29 02:00:00+01:00 FIRED_LATE', '2026-03-29 03:00:00+01:00']],
    ['Europe/London', '0 10 * * * *', '2026-03-28T23:30:00Z', ['2026-03-29 00:10:00+00:00', '2026-03-29 02:10:00+01:00 AFTER_SKIPPED', '2026-03-29 03:10:00+01:00'], ['2026-03-29 00:10:00+00:00', '2026-03-29 02:00:00+01:00 FIRED_LATE', '2026-03-29 02:10:00+01:00']],
    // The skipped time right after `after`: the first fire carries the mark.
    ['America/New_York', '0 0 * * * *', '2026-03-08T06:30:00Z', ['2026-03-08 03:00:00-04:00 AFTER_SKIPPED', '2026-03-08 04:00:00-04:00'], ['2026-03-08 03:00:00-04:00 FIRED_LATE', '2026-03-08 04:00:00-04:00']],
    ['America/New_York', '0 */20 * * * *', '2026-03-08T06:30:00Z', ['2026-03-08 01:40:00-05:00', '2026-03-08 03:00:00-04:00 AFTER_SKIPPED', '2026-03-08 03:20:00-04:00'], ['2026-03-08 01:40:00-05:00', '2026-03-08 03:00:00-04:00 FIRED_LATE', '2026-03-08 03:20:00-04:00']],
    // Lord Howe's half-hour gap (02:00–02:29): 02:30 is an own time of :00/:30, not of :00.
    ['Australia/Lord_Howe', '0 0,30 * * * *', '2026-10-03T14:45:00Z', ['2026-10-04 01:30:00+10:30', '2026-10-04 02:30:00+11:00 AFTER_SKIPPED', '2026-10-04 03:00:00+11:00'], ['2026-10-04 01:30:00+10:30', '2026-10-04 02:30:00+11:00 FIRED_LATE', '2026-10-04 03:00:00+11:00']],
    ['Australia/Lord_Howe', '0 0 * * * *', '2026-10-03T14:45:00Z', ['2026-10-04 03:00:00+11:00 AFTER_SKIPPED', '2026-10-04 04:00:00+11:00'], ['2026-10-04 02:30:00+11:00 FIRED_LATE', '2026-10-04 03:00:00+11:00']],
    // Daily, at a time in the gap; at the first time after it (not skipped, so unmarked).
    ['Europe/London', '0 0 1 * * *', '2026-03-28T12:00:00Z', ['2026-03-30 01:00:00+01:00 AFTER_SKIPPED', '2026-03-31 01:00:00+01:00'], ['2026-03-29 02:00:00+01:00 FIRED_LATE', '2026-03-30 01:00:00+01:00']],
    ['Europe/London', '0 0 2 * * *', '2026-03-28T12:00:00Z', ['2026-03-29 02:00:00+01:00', '2026-03-30 02:00:00+01:00'], ['2026-03-29 02:00:00+01:00', '2026-03-30 02:00:00+01:00']],
    ['America/New_York', '59 59 2 * * *', '2026-03-07T12:00:00Z', ['2026-03-09 02:59:59-04:00 AFTER_SKIPPED'], ['2026-03-08 03:00:00-04:00 FIRED_LATE', '2026-03-09 02:59:59-04:00']],
    ['Australia/Lord_Howe', '0 0 2 * * *', '2026-10-03T00:00:00Z', ['2026-10-05 02:00:00+11:00 AFTER_SKIPPED'], ['2026-10-04 02:30:00+11:00 FIRED_LATE', '2026-10-05 02:00:00+11:00']],
    ['Australia/Lord_Howe', '0 30 2 * * *', '2026-10-03T00:00:00Z', ['2026-10-04 02:30:00+11:00', '2026-10-05 02:30:00+11:00'], ['2026-10-04 02:30:00+11:00', '2026-10-05 02:30:00+11:00']],
  ])('%s %s', (zone, expression, from, skip, late) => {
    expect(marked(cron(expression, zone), from, skip.length)).toEqual(skip);
    expect(marked(cron(expression, zone, { skippedTime: 'FIRE_LATE' }), from, late.length)).toEqual(late);
  });

  it('every 10 seconds: only the first fire after the gap is marked', () => {
    const from = at('2026-03-29T00:00:00Z');
    for (const [skippedTime, mark] of [['SKIP', 'AFTER_SKIPPED'], ['FIRE_LATE', 'FIRED_LATE']] as const) {
      const trigger = cron('*/10 * * * * *', 'Europe/London', { skippedTime }) as CronTrigger;
      const list = nextFireTimes(schedule(trigger), from, 720);
      const marks = dstMarks(trigger, from, list);
      expect(marks.flatMap((m, i) => (m === null ? [] : [[new Date(list[i]).toISOString(), m]]))).toEqual([['2026-03-29T01:00:00.000Z', mark]]);
    }
  });
});

describe('dstMarks: a repeated local time', () => {
  it.each([
    // zone, expression, from, ONCE_LATER (default), ONCE_EARLIER, TWICE; the end of the repeated range is unmarked
    ['Europe/London', '0 0 * * * *', '2026-10-24T22:30:00Z', ['2026-10-25 00:00:00+01:00', '2026-10-25 01:00:00+00:00 REPEATED_LATER', '2026-10-25 02:00:00+00:00'], ['2026-10-25 00:00:00+01:00', '2026-10-25 01:00:00+01:00 REPEATED_EARLIER', '2026-10-25 02:00:00+00:00'], ['2026-10-25 00:00:00+01:00', '2026-10-25 01:00:00+01:00 REPEATED_EARLIER', '2026-10-25 01:00:00+00:00 REPEATED_LATER', '2026-10-25 02:00:00+00:00']],
    ['America/New_York', '0 30 1 * * *', '2026-10-31T12:00:00Z', ['2026-11-01 01:30:00-05:00 REPEATED_LATER', '2026-11-02 01:30:00-05:00'], ['2026-11-01 01:30:00-04:00 REPEATED_EARLIER', '2026-11-02 01:30:00-05:00'], ['2026-11-01 01:30:00-04:00 REPEATED_EARLIER', '2026-11-01 01:30:00-05:00 REPEATED_LATER', '2026-11-02 01:30:00-05:00']],
    ['Australia/Lord_Howe', '0 0,30 * * * *', '2026-04-04T14:15:00Z', ['2026-04-05 01:30:00+10:30 REPEATED_LATER', '2026-04-05 02:00:00+10:30'], ['2026-04-05 01:30:00+11:00 REPEATED_EARLIER', '2026-04-05 02:00:00+10:30'], ['2026-04-05 01:30:00+11:00 REPEATED_EARLIER', '2026-04-05 01:30:00+10:30 REPEATED_LATER', '2026-04-05 02:00:00+10:30']],
  ])('%s %s, under either skipped-time policy', (zone, expression, from, later, earlier, twice) => {
    for (const skippedTime of SKIPPED_TIME_POLICIES) {
      expect(marked(cron(expression, zone, { skippedTime }), from, later.length)).toEqual(later);
      expect(marked(cron(expression, zone, { repeatedTime: 'ONCE_EARLIER', skippedTime }), from, earlier.length)).toEqual(earlier);
      expect(marked(cron(expression, zone, { repeatedTime: 'TWICE', skippedTime }), from, twice.length)).toEqual(twice);
    }
  });
});

/**
 * Every mark against an oracle of its own, luxon's reading of local time (not wall-time.ts): a
 * fire is marked for a skipped time when a wall time the cron matches between the previous fire's
 * reading and its own does not exist; for a repeated time when its reading recurs half an hour or
 * an hour away.
 */
describe('dstMarks against luxon, around each 2026 change', () => {
  // zone, the change, the policies that differ there, the marks they give
  const skips = SKIPPED_TIME_POLICIES.map((skippedTime) => ({ skippedTime }));
  const repeats = REPEATED_TIME_POLICIES.map((repeatedTime) => ({ repeatedTime }));
  const changes: [string, string, Dst[], DstMark[]][] = [
    ['Europe/London', '2026-03-29T01:00:00Z', skips, ['AFTER_SKIPPED', 'FIRED_LATE']],
    ['Europe/London', '2026-10-25T01:00:00Z', repeats, ['REPEATED_EARLIER', 'REPEATED_LATER']],
    ['America/New_York', '2026-03-08T07:00:00Z', skips, ['AFTER_SKIPPED', 'FIRED_LATE']],
    ['America/New_York', '2026-11-01T06:00:00Z', repeats, ['REPEATED_EARLIER', 'REPEATED_LATER']],
    ['Australia/Lord_Howe', '2026-10-03T15:30:00Z', skips, ['AFTER_SKIPPED', 'FIRED_LATE']],
    ['Australia/Lord_Howe', '2026-04-04T15:00:00Z', repeats, ['REPEATED_EARLIER', 'REPEATED_LATER']],
  ];
  const expressions = ['0 0 * * * *', '0 30 * * * *', '0 10 * * * *', '0 */15 * * * *', '0 */20 * * * *', '0 0,30 * * * *', '59 59 * * * *', '0 0 1 * * *', '0 30 1 * * *', '0 0 2 * * *', '0 15 2 * * *', '0 30 2 * * *', '59 59 2 * * *', '0 0 3 * * *'];
  const HOUR = 3_600_000;
  const reading = (t: Millis, zone: string) => DateTime.fromMillis(t, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
  const wallOf = (t: Millis, zone: string) => Date.parse(`${reading(t, zone)}Z`);
  /** luxon moves a local time that does not exist forward, so its reading changes. */
  const exists = (wall: Millis, zone: string) => {
    const local = new Date(wall).toISOString().slice(0, 19);
    return reading(DateTime.fromISO(local, { zone }).toMillis(), zone) === local;
  };
  const skippedBetween = (expression: string, zone: string, from: Millis, to: Millis): boolean => {
    const job = compileCron(expression);
    const end = wallOf(to, zone);
    for (let w = wallOf(from, zone); ; ) {
      const next = job.nextRun(new Date(w))?.getTime();
      if (next === undefined || next >= end) return false;
      if (!exists(next, zone)) return true;
      w = next;
    }
  };
  const expected = (expression: string, zone: string, skippedTime: SkippedTimePolicy, previous: Millis, t: Millis): DstMark | null => {
    if (skippedBetween(expression, zone, previous, t)) return skippedTime === 'FIRE_LATE' ? 'FIRED_LATE' : 'AFTER_SKIPPED';
    const recurs = (sign: number) => [HOUR / 2, HOUR].some((d) => reading(t + sign * d, zone) === reading(t, zone));
    return recurs(1) ? 'REPEATED_EARLIER' : recurs(-1) ? 'REPEATED_LATER' : null;
  };

  it.each(changes)('%s, %s', (zone, change, policies, kinds) => {
    const from = at(change) - 26 * HOUR;
    const until = at(change) + 26 * HOUR;
    const seen = new Set<DstMark>();
    for (const expression of expressions) {
      for (const dst of policies) {
        const trigger = cron(expression, zone, dst) as CronTrigger;
        const list = nextFireTimes(schedule(trigger), from, 100).filter((t) => t <= until);
        const marks = dstMarks(trigger, from, list);
        const want = list.map((t, i) => expected(expression, zone, dst.skippedTime ?? 'SKIP', i === 0 ? from : list[i - 1], t));
        expect(marks, `${expression} ${JSON.stringify(dst)}`).toEqual(want);
        for (const m of marks) if (m !== null) seen.add(m);
      }
    }
    // The oracle is not vacuous: each change yields its own marks.
    expect([...seen].sort()).toEqual(kinds);
  });
});
