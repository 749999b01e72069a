import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WakeFloor } from './wake-floor';

describe('WakeFloor', () => {
  let kicks: Array<[string, number]>;
  let floor: WakeFloor;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    kicks = [];
    floor = new WakeFloor(20, () => Date.now(), (key) => kicks.push([key, Date.now()]));
  });
  afterEach(() => {
    floor.clear();
    vi.useRealTimers();
  });

  it("kicks a quiet tenant's first wake-up at once", () => {
    floor.wake('a');
    expect(kicks).toEqual([['a', 1_000_000]]);
  });

  it('coalesces the wake-ups inside the window into one kick at its end, so none is lost', () => {
    floor.wake('a');
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(0.3);
      floor.wake('a');
    }
    expect(kicks).toHaveLength(1);
    vi.advanceTimersByTime(20);
    expect(kicks).toEqual([
      ['a', 1_000_000],
      ['a', 1_000_020],
    ]);
  });

  it('holds a tenant waking back to back to one kick per floor', () => {
    const end = Date.now() + 1_000;
    while (Date.now() < end) {
      floor.wake('a');
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(100);
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
    vi.advanceTimersByTime(25);
    floor.wake('a');
    expect(kicks.map(([, at]) => at)).toEqual([1_000_000, 1_000_025]);
  });

  it('with a floor of 0, kicks every wake-up at once', () => {
    const none = new WakeFloor(0, () => Date.now(), (key) => kicks.push([key, Date.now()]));
    none.wake('a');
    none.wake('a');
    expect(kicks).toHaveLength(2);
  });

  it('drops the pending kick at clear (shutdown)', () => {
    floor.wake('a');
    floor.wake('a');
    floor.clear();
    vi.advanceTimersByTime(100);
    expect(kicks).toHaveLength(1);
  });
});
