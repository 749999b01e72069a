import { describe, expect, it } from 'vitest';
import type { Schedule } from '../types';
import { BACKFILL_TOO_MANY, backfillFires, backfillRange, MAX_BACKFILL_FIRES } from './backfill';

const H = 3_600_000;
const T = Date.UTC(2026, 10, 20, 0, 0, 0);
const hourly: Schedule = { trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' }, startAt: null, endAt: null, maxFires: 3, fireCount: 3, calendar: null };
const secondly: Schedule = { ...hourly, trigger: { kind: 'CRON', expression: '* * * * * *', timeZone: 'UTC' } };

/** Every fire of the range, the slices joined. */
const all = (schedule: Schedule, from: number, to: number, sliceSize?: number) => [...backfillFires(schedule, { from, to }, sliceSize)].flat();

describe('backfill fires', () => {
  it('are the trigger’s fire times in [from, to), whatever maxFires and the fires already made', () => {
    expect(all(hourly, T, T + 5 * H)).toEqual([0, 1, 2, 3, 4].map((i) => T + i * H));
  });

  it('honour the calendar and the start and end bounds', () => {
    const bounded = { ...hourly, startAt: T + 2 * H, endAt: T + 3 * H };
    expect(all(bounded, T, T + 5 * H)).toEqual([T + 2 * H, T + 3 * H]);
    const closed = { ...hourly, calendar: { name: 'closed', timeZone: 'UTC', dates: ['2026-11-20'] } };
    expect(all(closed, T, T + 30 * H)).toEqual([24, 25, 26, 27, 28, 29].map((i) => T + i * H));
  });

  it('follow a FIXED_RATE grid from its anchor', () => {
    const rate: Schedule = { ...hourly, trigger: { kind: 'FIXED_RATE', intervalMs: 30 * 60_000 }, createdAt: T };
    expect(all(rate, T + 10 * 60_000, T + 2 * H)).toEqual([T + 30 * 60_000, T + H, T + 90 * 60_000]);
  });

  it('come in slices that add up to the same fires, none twice', () => {
    const slices = [...backfillFires(secondly, { from: T, to: T + 1_234_000 }, 500)];
    expect(slices.map((s) => s.length)).toEqual([500, 500, 234]);
    expect(slices.flat()).toEqual(Array.from({ length: 1234 }, (_, i) => T + i * 1000));
  });

  it('stop one past the most a backfill may make, so the caller refuses the range without computing it all', () => {
    const fires = all(secondly, T, T + 3 * H);
    expect(fires.length).toBe(MAX_BACKFILL_FIRES + 1);
    expect(BACKFILL_TOO_MANY).toEqual({ field: 'to', reason: `the range holds more than ${MAX_BACKFILL_FIRES} fires: narrow it` });
    expect(all(secondly, T, T + MAX_BACKFILL_FIRES * 1000).length).toBe(MAX_BACKFILL_FIRES);
  });
});

describe('backfill range', () => {
  it('is [from, to) when the trigger has past fires and to is not in the future', () => {
    expect(backfillRange(hourly, { from: T, to: T + 5 * H }, T + 5 * H)).toEqual({ from: T, to: T + 5 * H });
  });

  it('refuses what cannot be backfilled, naming the field', () => {
    expect(backfillRange({ ...hourly, trigger: { kind: 'MANUAL' } }, { from: T, to: T + H }, T + 2 * H)).toEqual({ errors: [{ field: 'trigger', reason: expect.stringContaining('MANUAL') }] });
    expect(backfillRange(hourly, { from: T, to: T + 5 * H }, T + H)).toEqual({ errors: [{ field: 'to', reason: expect.stringContaining('future') }] });
    expect(backfillRange(hourly, { from: T + H, to: T }, T + 5 * H)).toEqual({ errors: [{ field: 'from', reason: 'must be before to' }] });
    expect(backfillRange(hourly, { from: 'yesterday', to: T }, T + 5 * H)).toEqual({ errors: [{ field: 'from', reason: expect.any(String) }] });
  });
});
