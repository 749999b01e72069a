import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { MAX_WAKE_RUNS } from '@baton/protocol';
import { WAKE_BURST, WakeFloor } from './wake-floor';

describe('WakeFloor', () => {
  const T0 = 1_000_000;
  let clock: ManualClock;
  let kicks: Array<[string, number]>;
  let floor: WakeFloor;

  beforeEach(() => {
    clock = new ManualClock(T0);
    kicks = [];
    floor = new WakeFloor(20, clock, (key) => kicks.push([key, clock.now()]));
  });
  afterEach(() => floor.clear());

  const burst = (key: string) => {
    for (let i = 0; i < WAKE_BURST; i++) floor.wake(key);
  };

  it("kicks a quiet tenant's first wake-up at once", () => {
    floor.wake('a');
    expect(kicks).toEqual([['a', T0]]);
  });

  it('kicks a burst of WAKE_BURST wake-ups at once, then coalesces those that follow into one kick a floor later, so none is lost', () => {
    burst('a');
    expect(kicks).toHaveLength(WAKE_BURST);
    for (let i = 0; i < 50; i++) {
      clock.advance(0.3);
      floor.wake('a');
    }
    expect(kicks).toHaveLength(WAKE_BURST);
    clock.advance(20 - 15);
    expect(kicks).toHaveLength(WAKE_BURST + 1);
    expect(kicks.at(-1)).toEqual(['a', T0 + 20]);
  });

  it('kicks a trickle at or below one a floor at once, however its wake-ups bunch', () => {
    // 200 wake-ups, 20 ms apart on average but in bunches of up to WAKE_BURST: none waits.
    let at = T0;
    for (let i = 0; i < 200; i++) {
      at += i % WAKE_BURST === 0 ? 20 * WAKE_BURST - (WAKE_BURST - 1) : 1;
      clock.advance(at - clock.now());
      floor.wake('a');
      expect(kicks.at(-1)).toEqual(['a', at]);
    }
    expect(kicks).toHaveLength(200);
  });

  it('holds a tenant waking back to back to its burst and one kick per floor after it', () => {
    const end = clock.now() + 1_000;
    while (clock.now() < end) {
      floor.wake('a');
      clock.advance(1);
    }
    clock.advance(100);
    expect(kicks.length).toBeGreaterThanOrEqual(50);
    expect(kicks.length).toBeLessThanOrEqual(WAKE_BURST + 51);
    // Any WAKE_BURST + 1 kicks in a row span a floor at least: WAKE_BURST + t ÷ floor in any t ms.
    for (let i = WAKE_BURST; i < kicks.length; i++) expect(kicks[i][1] - kicks[i - WAKE_BURST][1]).toBeGreaterThanOrEqual(20);
  });

  it("keeps tenants apart: one tenant's used-up burst never delays another's kick", () => {
    burst('a');
    floor.wake('a');
    floor.wake('b');
    expect(kicks.slice(WAKE_BURST)).toEqual([['b', T0]]);
  });

  it('kicks at once again once the allowance has refilled', () => {
    burst('a');
    clock.advance(20 * WAKE_BURST);
    burst('a');
    expect(kicks).toHaveLength(2 * WAKE_BURST);
    expect(clock.pendingTimers).toBe(0);
  });

  it('with a floor of 0, kicks every wake-up at once', () => {
    const none = new WakeFloor(0, clock, (key) => kicks.push([key, clock.now()]));
    for (let i = 0; i < 3 * WAKE_BURST; i++) none.wake('a');
    expect(kicks).toHaveLength(3 * WAKE_BURST);
  });

  it('names in the trailing kick the runs the coalesced wake-ups named; none when one named none or they named more than a wake-up may', () => {
    const named: Array<readonly number[] | undefined> = [];
    const byId = new WakeFloor(20, clock, (_key, runIds) => named.push(runIds));
    try {
      for (let i = 0; i < WAKE_BURST; i++) byId.wake('a', [i + 1]);
      expect(named).toEqual(Array.from({ length: WAKE_BURST }, (_, i) => [i + 1]));
      named.length = 0;
      byId.wake('a', [101]);
      byId.wake('a', [102, 103]);
      byId.wake('a', [104]);
      clock.advance(20);
      byId.wake('a', [105]);
      byId.wake('a');
      clock.advance(20);
      byId.wake('a', Array.from({ length: MAX_WAKE_RUNS / 2 + 10 }, (_, i) => 10_000 + i));
      byId.wake('a', Array.from({ length: MAX_WAKE_RUNS / 2 + 10 }, (_, i) => 20_000 + i));
      clock.advance(20);
      expect(named).toEqual([[101, 102, 103, 104], undefined, undefined]);
    } finally {
      byId.clear();
    }
  });

  it('drops the pending kick at clear (shutdown)', () => {
    burst('a');
    floor.wake('a');
    expect(clock.pendingTimers).toBe(1);
    floor.clear();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(100);
    expect(kicks).toHaveLength(WAKE_BURST);
  });
});
