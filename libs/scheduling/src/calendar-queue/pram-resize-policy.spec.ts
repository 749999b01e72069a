import { describe, expect, it } from 'vitest';
import { PramResizePolicy } from './pram-resize-policy';
import { NaiveResizePolicy, type ResizePolicy } from './resize-policy';

/** Drives a policy through a size trace (+1 arrival / −1 departure per step), applying its answers. */
function simulate(policy: ResizePolicy, steps: number[], buckets = 2): { resizes: number; buckets: number } {
  let size = 0;
  let resizes = 0;
  for (const s of steps) {
    size += s;
    const nb = s > 0 ? policy.onArrival(size, buckets) : policy.onDeparture(size, buckets);
    if (nb > 0 && nb !== buckets) {
      buckets = nb;
      resizes++;
    }
  }
  return { resizes, buckets };
}

const arrivals = (n: number) => Array<number>(n).fill(1);
const departures = (n: number) => Array<number>(n).fill(-1);

describe('NaiveResizePolicy (Brown)', () => {
  it('doubles above 2·NB and halves below NB/2', () => {
    const p = new NaiveResizePolicy();
    expect(p.onArrival(9, 4)).toBe(8);
    expect(p.onArrival(8, 4)).toBe(0);
    expect(p.onDeparture(1, 4)).toBe(2);
    expect(p.onDeparture(2, 4)).toBe(0);
    expect(p.onDeparture(0, 2)).toBe(0); // never below minBuckets
  });

  it('doubles one step at a time while a burst arrives', () => {
    expect(simulate(new NaiveResizePolicy(), arrivals(100_000)).resizes).toBe(15); // 2 → 65536
  });
});

describe('PramResizePolicy', () => {
  it('answers "keep" without forecasting while the size is inside the band', () => {
    const p = new PramResizePolicy();
    for (let i = 0; i < 50; i++) expect(p.onArrival(150, 100)).toBe(0);
    expect(p.lastForecast).toBeNaN();
  });

  it('sizes for the forecast, not the current size, while arrivals dominate', () => {
    const p = new PramResizePolicy();
    simulate(p, arrivals(2000), 1_000_000); // fill the window with arrivals, no trigger
    // 301 > 3·100: forecast ≈ 301 + 301·(2p − 1) ≈ 601 events, sized at one event per bucket.
    const nb = p.onArrival(301, 100);
    expect(p.arrivalShare).toBeGreaterThan(0.999);
    expect(nb).toBeGreaterThanOrEqual(600);
    expect(nb).toBeLessThanOrEqual(602);
  });

  it('grows in far fewer steps than Brown while a burst arrives', () => {
    const pram = simulate(new PramResizePolicy(), arrivals(100_000));
    const naive = simulate(new NaiveResizePolicy(), arrivals(100_000));
    expect(pram.resizes).toBeLessThanOrEqual(naive.resizes / 2);
    expect(pram.buckets).toBeGreaterThanOrEqual(100_000 / 3); // ended inside its band
  });

  it('does not grow for a size that crossed the band while the queue is draining', () => {
    const p = new PramResizePolicy();
    simulate(p, departures(2000), 1_000_000); // the window says: departures only
    expect(p.onArrival(301, 100)).toBe(0); // naive would double here
    expect(p.deferrals).toBe(1);
    expect(p.lastForecast).toBeLessThan(300);
    // Asked again only after recheckEvery operations.
    for (let i = 0; i < 63; i++) p.onDeparture(302, 100);
    expect(p.deferrals).toBe(1);
    p.onDeparture(302, 100);
    expect(p.deferrals).toBe(2);
  });

  it('still grows through the safety valve when the buckets get too long', () => {
    const p = new PramResizePolicy();
    simulate(p, departures(2000), 1_000_000);
    const nb = p.onArrival(801, 100); // > 8·NB
    expect(nb).toBeGreaterThan(100);
    expect(801 / nb).toBeLessThanOrEqual(8);
  });

  it('shrinks straight to the forecast when a queue drains', () => {
    const p = new PramResizePolicy();
    simulate(p, departures(2000), 1_000_000);
    expect(p.onDeparture(300, 1000)).toBe(Math.ceil(300 / 8)); // forecast ≈ 0, floored by the valve
  });

  it('resizes less than Brown on repeated bursts (fill, drain, fill …)', () => {
    const trace: number[] = [];
    for (let c = 0; c < 20; c++) trace.push(...arrivals(3000), ...departures(3000));
    const pram = simulate(new PramResizePolicy(), trace);
    const naive = simulate(new NaiveResizePolicy(), trace);
    expect(naive.resizes).toBeGreaterThan(300);
    expect(pram.resizes).toBeLessThanOrEqual(naive.resizes / 3);
  });

  it('stays put when the size hovers around a threshold with balanced traffic', () => {
    const trace: number[] = [...arrivals(1000)];
    for (let i = 0; i < 20_000; i++) trace.push(i % 2 === 0 ? 1 : -1);
    const growth = simulate(new PramResizePolicy(), trace.slice(0, 1000));
    const all = simulate(new PramResizePolicy(), trace);
    expect(all.resizes).toBe(growth.resizes); // nothing after the growth
    expect(all.buckets).toBe(growth.buckets);
  });

  it('reset() forgets the window', () => {
    const p = new PramResizePolicy();
    simulate(p, arrivals(500));
    p.reset();
    expect(p.arrivalShare).toBe(0.5);
    expect(p.deferrals).toBe(0);
  });

  it('refuses a band that cannot work', () => {
    expect(() => new PramResizePolicy({ growAt: 1 })).toThrow(RangeError);
    expect(() => new PramResizePolicy({ eventsPerBucket: 0 })).toThrow(RangeError);
  });
});
