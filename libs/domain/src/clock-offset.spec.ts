import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock';
import { clockSkewState, offsetOf, OffsetClock, READING_ROUNDING_MS } from './clock-offset';

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
    expect(offsetOf({ sentAt: T, referenceAt: T - 4_995, receivedAt: T + 10 })).toMatchObject({ offsetMs: -5_000, uncertaintyMs: 5 });
    expect(offsetOf({ sentAt: T, referenceAt: T + 3, receivedAt: T + 6 })).toMatchObject({ offsetMs: 0, uncertaintyMs: 3 });
    expect(offsetOf({ sentAt: T, referenceAt: T + 800, receivedAt: T })).toMatchObject({ offsetMs: 800, uncertaintyMs: 0 });
    // A base clock stepped back during the exchange: no negative round trip.
    expect(offsetOf({ sentAt: T, referenceAt: T, receivedAt: T - 50 })).toMatchObject({ offsetMs: 0, uncertaintyMs: 0 });
  });

  it('the offset sure not to be ahead takes the answer as read at the end of the round trip, less the rounding: never ahead of the reference, at most the round trip behind', () => {
    expect(offsetOf({ sentAt: T, referenceAt: T - 4_995, receivedAt: T + 10 }).notAheadMs).toBe(-5_005 - READING_ROUNDING_MS);
    expect(offsetOf({ sentAt: T, referenceAt: T + 800, receivedAt: T }).notAheadMs).toBe(800 - READING_ROUNDING_MS);
    expect(offsetOf({ sentAt: T, referenceAt: T, receivedAt: T - 50 }).notAheadMs).toBe(-READING_ROUNDING_MS);
    // Wherever in the round trip the reference was read, and however the two clocks rounded, a base
    // clock corrected by it reads at most the reference's time.
    for (const trueOffset of [-5_000.7, -0.4, 0, 0.5, 3.9, 5_000.2]) {
      for (const readAt of [0, 0.3, 0.5, 0.99]) {
        const [sent, received] = [1000.2, 1004.8];
        const base = (t: number) => Math.floor(t); // Date.now(): truncated
        const reference = (t: number) => Math.round(t + trueOffset); // ROUND(… NOW(3) …)
        const { notAheadMs } = offsetOf({ sentAt: base(sent), referenceAt: reference(sent + readAt * (received - sent)), receivedAt: base(received) });
        for (const later of [received, received + 0.6, received + 1_000.9]) expect(base(later) + notAheadMs).toBeLessThanOrEqual(later + trueOffset);
      }
    }
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
