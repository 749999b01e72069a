import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { WakeFloor } from './wake-floor';

describe('WakeFloor', () => {
  let clock: ManualClock;
  let kicks: Array<[string, number]>;
  let floor: WakeFloor;

  beforeEach(() => {
    clock = new ManualClock(1_000_000);
    kicks = [];
    floor = new WakeFloor(20, clock, (key) => kicks.push([key, clock.now()]));
  });
  afterEach(() => floor.clear());

  it("kicks a quiet tenant's first wake-up at once", () => {
    floor.wake('a');
    expect(kicks).toEqual([['a', 1_000_000]]);
  });

  it('coalesces the wake-ups inside the window into one kick at its end, so none is lost', () => {
    floor.wake('a');
    for (let i = 0; i < 50; i++) {
      clock.advance(0.3);
      floor.wake('a');
    }
    expect(kicks).toHaveLength(1);
    clock.advance(20);
    expect(kicks).toEqual([
      ['a', 1_000_000],
      ['a', 1_000_020],
    ]);
  });

  it('holds a tenant waking back to back to one kick per floor', () => {
    const end = clock.now() + 1_000;
    while (clock.now() < end) {
      floor.wake('a');
      clock.advance(1);
    }
    clock.advance(100);
    expect(kicks.length).toBeGreaterThanOrEqual(50);
    expect(kicks.length).toBeLessThanOrEqual(51);
    for (let i = 1; i < kicks.length; i++) expect(kicks[i][1] - kicks[i - 1][1]).toBeGreaterThanOrEqual(20);
  });

  it("keeps tenants apart: one tenant's window never delays another's kick", () => {
    floor.wake('a');
    floor.wake('a');
    floor.wake('b');
    expect(kicks).toEqual([
      ['a', 1_000_000],
      ['b', 1_000_000],
    ]);
  });

  it('kicks at once again once the window has passed without a wake-up', () => {
    floor.wake('a');
    clock.advance(25);
    floor.wake('a');
    expect(kicks.map(([, at]) => at)).toEqual([1_000_000, 1_000_025]);
  });

  it('with a floor of 0, kicks every wake-up at once', () => {
    const none = new WakeFloor(0, clock, (key) => kicks.push([key, clock.now()]));
    none.wake('a');
    none.wake('a');
    expect(kicks).toHaveLength(2);
  });

  it('names in the trailing kick the runs the coalesced wake-ups named; none when one named none or they named more than a wake-up may', () => {
    const named: Array<readonly number[] | undefined> = [];
    const byId = new WakeFloor(20, clock, (_key, runIds) => named.push(runIds));
    try {
      byId.wake('a', [1]);
      byId.wake('a', [2, 3]);
      byId.wake('a', [4]);
      clock.advance(20);
      byId.wake('a', [5]);
      byId.wake('a');
      clock.advance(20);
      byId.wake('a', Array.from({ length: 60 }, (_, i) => 100 + i));
      byId.wake('a', Array.from({ length: 60 }, (_, i) => 200 + i));
      clock.advance(20);
      expect(named).toEqual([[1], [2, 3, 4], undefined, undefined]);
    } finally {
      byId.clear();
    }
  });

  it('drops the pending kick at clear (shutdown)', () => {
    floor.wake('a');
    floor.wake('a');
    expect(clock.pendingTimers).toBe(1);
    floor.clear();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(100);
    expect(kicks).toHaveLength(1);
  });
});
