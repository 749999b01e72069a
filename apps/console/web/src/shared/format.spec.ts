import { describe, expect, it } from 'vitest';
import { fmtAgo, fmtDuration, fmtSince, fmtTime, fmtUntil, fmtUtc, fromLocalInput, parseDuration, toLocalInput } from './format';

describe('durations as people read them', () => {
  it('rounds once, to the unit shown: never "17 min 60 s" or "60.0 s"', () => {
    expect(fmtDuration(17 * 60_000 + 59_700)).toBe('18 min 0 s');
    expect(fmtDuration(59_960)).toBe('1 min 0 s');
    expect(fmtDuration(9_996)).toBe('10.0 s');
    expect(fmtDuration(3_599_700)).toBe('1 h 0 min');
    expect(fmtDuration(2 * 3600_000 + 59 * 60_000 + 40_000)).toBe('3 h 0 min');
    expect(fmtDuration(-1_500)).toBe('−1.50 s');
    expect(fmtDuration(999.6)).toBe('1000 ms');
    expect(fmtDuration(7 * 86_400_000)).toBe('7 d 0 h');
    expect(fmtDuration(36 * 3600_000 + 20 * 60_000)).toBe('1 d 12 h');
  });

  it('says how long ago, or in how long', () => {
    expect(fmtAgo(1_000, 1_500)).toBe('just now');
    expect(fmtAgo(0, 17 * 60_000 + 59_700)).toBe('18 min 0 s ago');
    expect(fmtAgo(10_000, 0)).toBe('in 10.0 s');
  });

  it('never says a past event is still to come (a stale now, a browser clock behind the server)', () => {
    expect(fmtSince(6_190, 5_000)).toBe('just now');
    expect(fmtSince(0, 17 * 60_000 + 59_700)).toBe('18 min 0 s ago');
    expect(fmtSince(null, 0)).toBe('—');
  });

  it('never says a time to come has passed: one the page read before it came reads "now" (a task that fires every second)', () => {
    expect(fmtUntil(10_700, 0)).toBe('in 10.7 s');
    expect(fmtUntil(1_000, 5_000)).toBe('now');
    expect(fmtUntil(null, 0)).toBe('—');
  });
});

describe('durations as typed', () => {
  it('reads milliseconds, and 30s / 5m / 5 min / 1.5h / 2d', () => {
    expect(parseDuration('300000')).toBe(300_000);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration(' 5m ')).toBe(300_000);
    expect(parseDuration('5 min')).toBe(300_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('2D')).toBe(172_800_000);
    expect(parseDuration('250ms')).toBe(250);
    // Negative, for the API to name its least.
    expect(parseDuration('-1')).toBe(-1);
    expect(parseDuration('-5s')).toBe(-5_000);
  });

  it('refuses what is not a duration (the field is then sent as typed, and the API names it)', () => {
    for (const text of ['', 'soon', '5 weeks', '--5s', '1e3', '5m30s']) expect(parseDuration(text)).toBeNull();
  });
});

describe('instants as people read them', () => {
  it('year first, 24 h, with the zone they are shown in', () => {
    const t = Date.UTC(2026, 10, 25, 13, 5, 9);
    expect(fmtTime(t, 'UTC')).toBe('2026-11-25 13:05:09 UTC');
    expect(fmtTime(t, 'Europe/Berlin')).toMatch(/^2026-11-25 14:05:09 (CET|GMT\+1)$/);
    expect(fmtTime(null)).toBe('—');
  });
});

describe('datetime-local fields in the display time zone', () => {
  it('reads and writes the wall clock of the zone, DST included', () => {
    const summer = Date.UTC(2026, 6, 1, 10, 30);
    expect(toLocalInput(summer, 'Europe/Berlin')).toBe('2026-07-01T12:30');
    expect(fromLocalInput('2026-07-01T12:30', 'Europe/Berlin')).toBe(summer);
    expect(fromLocalInput('2026-01-01T12:30', 'Asia/Shanghai')).toBe(Date.UTC(2026, 0, 1, 4, 30));
    expect(fromLocalInput('', 'UTC')).toBeNull();
  });

  it('hovers the UTC instant to the millisecond', () => {
    expect(fmtUtc(Date.UTC(2026, 10, 25, 4, 31, 29, 123))).toBe('2026-11-25 04:31:29.123 UTC');
  });
});
