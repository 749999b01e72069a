import { describe, expect, it } from 'vitest';
import type { Schedule } from '../types';
import { backfillFires, MAX_BACKFILL_FIRES } from './backfill';

const H = 3_600_000;
const T = Date.UTC(2026, 10, 20, 0, 0, 0);
const hourly: Schedule = { trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' }, startAt: null, endAt: null, maxFires: 3, fireCount: 3, calendar: null };

describe('backfill fires', () => {
  it('are the trigger’s fire times in [from, to), whatever maxFires and the fires already made', () => {
    expect(backfillFires(hourly, { from: T, to: T + 5 * H }, T + 10 * H)).toEqual({ fires: [0, 1, 2, 3, 4].map((i) => T + i * H) });
  });

  it('honour the calendar and the start and end bounds', () => {
    const bounded = { ...hourly, startAt: T + 2 * H, endAt: T + 3 * H };
    expect(backfillFires(bounded, { from: T, to: T + 5 * H }, T + 10 * H)).toEqual({ fires: [T + 2 * H, T + 3 * H] });
    const closed = { ...hourly, calendar: { name: 'closed', timeZone: 'UTC', dates: ['2026-11-20'] } };
    expect(backfillFires(closed, { from: T, to: T + 30 * H }, T + 40 * H)).toEqual({ fires: [24, 25, 26, 27, 28, 29].map((i) => T + i * H) });
  });

  it('follow a FIXED_RATE grid from its anchor', () => {
    const rate: Schedule = { ...hourly, trigger: { kind: 'FIXED_RATE', intervalMs: 30 * 60_000 }, createdAt: T };
    expect(backfillFires(rate, { from: T + 10 * 60_000, to: T + 2 * H }, T + 3 * H)).toEqual({ fires: [T + 30 * 60_000, T + H, T + 90 * 60_000] });
  });

  it('refuse what cannot be backfilled, naming the field', () => {
    expect(backfillFires({ ...hourly, trigger: { kind: 'MANUAL' } }, { from: T, to: T + H }, T + 2 * H)).toEqual({ errors: [{ field: 'trigger', reason: expect.stringContaining('MANUAL') }] });
    expect(backfillFires(hourly, { from: T, to: T + 5 * H }, T + H)).toEqual({ errors: [{ field: 'to', reason: expect.stringContaining('future') }] });
    expect(backfillFires(hourly, { from: T + H, to: T }, T + 5 * H)).toEqual({ errors: [{ field: 'from', reason: 'must be before to' }] });
    expect(backfillFires(hourly, { from: 'yesterday', to: T }, T + 5 * H)).toEqual({ errors: [{ field: 'from', reason: expect.any(String) }] });
    const secondly = { ...hourly, trigger: { kind: 'CRON' as const, expression: '* * * * * *', timeZone: 'UTC' } };
    expect(backfillFires(secondly, { from: T, to: T + 3 * H }, T + 4 * H)).toEqual({ errors: [{ field: 'to', reason: `the range holds more than ${MAX_BACKFILL_FIRES} fires: narrow it` }] });
  });
});
