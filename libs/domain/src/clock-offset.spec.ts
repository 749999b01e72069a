import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock';
import { clockSkewState, offsetOf, OffsetClock } from './clock-offset';

describe('clock offset', () => {
  const T = 1_767_225_600_000;

  it('an OffsetClock reads its base plus the offset measured; its timers are its base clock\'s', () => {
    const base = new ManualClock(T + 5_000); // this machine's clock, 5 s ahead
    const clock = new OffsetClock(base);
    expect(clock.now()).toBe(T + 5_000);
    clock.correct(-5_000);
    expect([clock.now(), clock.raw(), clock.offsetMs]).toEqual([T, T + 5_000, -5_000]);
    const fired: number[] = [];
    clock.after(100, () => fired.push(clock.now()));
    base.advance(99);
    expect(fired).toEqual([]);
    base.advance(1);
    expect(fired).toEqual([T + 100]);
  });

  it('the offset is the reference minus the midpoint of the round trip, its uncertainty half the round trip', () => {
    expect(offsetOf({ sentAt: T, referenceAt: T - 4_995, receivedAt: T + 10 })).toEqual({ offsetMs: -5_000, uncertaintyMs: 5 });
    expect(offsetOf({ sentAt: T, referenceAt: T + 3, receivedAt: T + 6 })).toEqual({ offsetMs: 0, uncertaintyMs: 3 });
    expect(offsetOf({ sentAt: T, referenceAt: T + 800, receivedAt: T })).toEqual({ offsetMs: 800, uncertaintyMs: 0 });
    // A base clock stepped back during the exchange: no negative round trip.
    expect(offsetOf({ sentAt: T, referenceAt: T, receivedAt: T - 50 })).toEqual({ offsetMs: 0, uncertaintyMs: 0 });
  });

  it('an offset is in bound up to the alarm bound, skewed beyond it, stopped beyond the stop bound; either way; 0 turns a bound off', () => {
    const bounds = { alarmMs: 500, stopMs: 2_000 };
    expect([0, 500, -500, 501, -501, 2_000, 2_001, -5_000].map((o) => clockSkewState(o, bounds))).toEqual([
      'IN_BOUND',
      'IN_BOUND',
      'IN_BOUND',
      'SKEWED',
      'SKEWED',
      'SKEWED',
      'STOPPED',
      'STOPPED',
    ]);
    expect(clockSkewState(-5_000, { alarmMs: 500, stopMs: 0 })).toBe('SKEWED');
    expect(clockSkewState(-5_000, { alarmMs: 0, stopMs: 0 })).toBe('IN_BOUND');
  });
});
