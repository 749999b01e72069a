import { describe, expect, it } from 'vitest';
import { fairShares, type Claimant } from './fair-shares';

const c = (key: string, cap: number, weight = 1): Claimant<string> => ({ key, cap, weight });
const asObject = (m: Map<string, number>) => Object.fromEntries(m);

describe('fairShares (weighted max-min)', () => {
  it('gives everyone its cap when the caps fit', () => {
    expect(asObject(fairShares(100, [c('a', 10), c('b', 20)]))).toEqual({ a: 10, b: 20 });
  });

  it('splits equally among claimants that each want more than an equal part', () => {
    expect(asObject(fairShares(100, [c('a', 1000), c('b', 1000)]))).toEqual({ a: 50, b: 50 });
  });

  it('gives what a modest claimant leaves to the others (work-conserving)', () => {
    // b can use only 10: a and c split the other 90.
    expect(asObject(fairShares(100, [c('a', 1000), c('b', 10), c('c', 1000)]))).toEqual({ a: 45, b: 10, c: 45 });
  });

  it('a huge claimant gets its share, never another claimant’s', () => {
    const shares = fairShares(20_000, [c('backfill', 50_000), c('small', 208), c('burst', 4000)]);
    expect(asObject(shares)).toEqual({ backfill: 15_792, small: 208, burst: 4000 });
  });

  it('divides by weight', () => {
    expect(asObject(fairShares(90, [c('a', 1000, 2), c('b', 1000, 1)]))).toEqual({ a: 60, b: 30 });
    // a weighted claimant capped below its part leaves the rest to the other.
    expect(asObject(fairShares(90, [c('a', 10, 5), c('b', 1000, 1)]))).toEqual({ a: 10, b: 80 });
  });

  it('hands out every unit: the remainders go one each, in the order given', () => {
    expect(asObject(fairShares(10, [c('a', 100), c('b', 100), c('c', 100)]))).toEqual({ a: 4, b: 3, c: 3 });
    expect(asObject(fairShares(10, [c('c', 100), c('b', 100), c('a', 100)]))).toEqual({ a: 3, b: 3, c: 4 });
  });

  it('nothing to a claimant of no weight or no cap, and never more than the total', () => {
    expect(asObject(fairShares(10, [c('a', 100, 0), c('b', 0), c('c', 100)]))).toEqual({ a: 0, b: 0, c: 10 });
    expect(asObject(fairShares(0, [c('a', 5)]))).toEqual({ a: 0 });
    expect(asObject(fairShares(-3, [c('a', 5)]))).toEqual({ a: 0 });
  });

  it('sums to min(total, Σcaps) and respects every cap, for 1,000 claimants of mixed caps and weights', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const claimants = Array.from({ length: 1000 }, (_, i) => c(`t${i}`, Math.floor(rand() * 400), 1 + Math.floor(rand() * 4)));
    for (const total of [0, 17, 500, 20_000, 1_000_000]) {
      const shares = fairShares(total, claimants);
      const sum = [...shares.values()].reduce((a, b) => a + b, 0);
      expect(sum).toBe(Math.min(total, claimants.reduce((a, x) => a + x.cap, 0)));
      for (const x of claimants) expect(shares.get(x.key)).toBeLessThanOrEqual(x.cap);
      // Max-min: a claimant below its cap has at least (nearly) the per-weight level of any other.
      const level = Math.min(...claimants.filter((x) => shares.get(x.key)! < x.cap).map((x) => (shares.get(x.key)! + 1) / x.weight));
      for (const x of claimants) expect(shares.get(x.key)! / x.weight).toBeLessThanOrEqual(Math.max(x.cap / x.weight, level + 1e-9));
    }
  });
});
