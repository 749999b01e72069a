import { describe, expect, it } from 'vitest';
import { TokenBucket, TokenBuckets, type TokenBucketOptions } from './token-bucket';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T0 = 1_700_000_000_000;

describe('TokenBucket', () => {
  it('starts full and lets a burst of `capacity` through, then refuses', () => {
    const b = new TokenBucket({ capacity: 3, refillPerSec: 1 });
    expect([b.tryTake(T0), b.tryTake(T0), b.tryTake(T0), b.tryTake(T0)]).toEqual([true, true, true, false]);
  });

  it('refills continuously at refillPerSec: 5/s gives one token per 200 ms', () => {
    const b = new TokenBucket({ capacity: 10, refillPerSec: 5 });
    expect(b.tryTake(T0, 10)).toBe(true);
    expect(b.available(T0 + 100)).toBeCloseTo(0.5, 12);
    expect(b.tryTake(T0 + 199)).toBe(false);
    expect(b.tryTake(T0 + 200)).toBe(true);
    expect(b.available(T0 + 200)).toBeCloseTo(0, 12);
    expect(b.available(T0 + 1200)).toBeCloseTo(5, 12);
  });

  it('never holds more than capacity, however long it idles', () => {
    const b = new TokenBucket({ capacity: 4, refillPerSec: 1000 });
    b.tryTake(T0, 4);
    expect(b.available(T0 + 86_400_000)).toBe(4);
    expect(b.tryTake(T0 + 86_400_000, 5)).toBe(false); // more than capacity: never
    expect(b.tryTake(T0 + 86_400_000, 4)).toBe(true);
  });

  it('msUntilAvailable is exact on whole milliseconds', () => {
    const b = new TokenBucket({ capacity: 10, refillPerSec: 5 });
    b.tryTake(T0, 10);
    expect(b.msUntilAvailable(T0)).toBe(200);
    expect(b.msUntilAvailable(T0, 3)).toBe(600);
    expect(b.msUntilAvailable(T0 + 150)).toBe(50);
    expect(b.msUntilAvailable(T0 + 200)).toBe(0);
    expect(b.msUntilAvailable(T0, 11)).toBe(Infinity);
    expect(new TokenBucket({ capacity: 1, refillPerSec: 0, initialTokens: 0 }).msUntilAvailable(T0)).toBe(Infinity);
  });

  it('property: waiting msUntilAvailable always suffices, and a zero wait means a take succeeds now', () => {
    const r = rng(5);
    for (let trial = 0; trial < 200; trial++) {
      const opts: TokenBucketOptions = { capacity: 1 + Math.floor(r() * 50), refillPerSec: r() * 1000 + 0.01, initialTokens: r() * 10 };
      const b = new TokenBucket(opts);
      let now = T0 + Math.floor(r() * 1000);
      for (let step = 0; step < 50; step++) {
        const n = 1 + Math.floor(r() * opts.capacity);
        const wait = b.msUntilAvailable(now, n);
        expect(Number.isInteger(wait)).toBe(true);
        if (wait === 0) expect(b.canTake(now, n)).toBe(true);
        else expect(b.canTake(now, n)).toBe(false);
        now += wait;
        expect(b.tryTake(now, n)).toBe(true);
        now += Math.floor(r() * 20);
      }
    }
  });

  it('property: the level equals min(capacity, start + refill − taken) under random traffic', () => {
    const r = rng(11);
    const b = new TokenBucket({ capacity: 20, refillPerSec: 250 }); // 1 token per 4 ms
    let expected = 20;
    let last = T0;
    b.available(T0);
    for (let step = 0; step < 2000; step++) {
      const now = last + Math.floor(r() * 10);
      expected = Math.min(20, expected + ((now - last) * 250) / 1000);
      last = now;
      const n = Math.floor(r() * 4);
      const took = b.tryTake(now, n);
      expect(took).toBe(n <= expected + 1e-9);
      if (took) expected -= n;
      expect(b.available(now)).toBeCloseTo(Math.max(0, expected), 9);
    }
  });

  it('ignores a clock that steps back instead of counting time twice', () => {
    const b = new TokenBucket({ capacity: 10, refillPerSec: 10 });
    b.tryTake(T0, 10);
    expect(b.available(T0 + 500)).toBeCloseTo(5, 12);
    expect(b.available(T0 + 100)).toBeCloseTo(5, 12); // stepped back: nothing earned, nothing lost
    expect(b.available(T0 + 600)).toBeCloseTo(6, 12); // only the time past 500 counts
    expect(b.msUntilAvailable(T0 + 100, 7)).toBe(600); // measured from 100: 500 behind + 100 to earn one more
  });

  it('refund gives tokens back up to capacity; reconfigure keeps the level, clamped', () => {
    const b = new TokenBucket({ capacity: 10, refillPerSec: 1 });
    b.tryTake(T0, 6);
    b.refund(T0, 2);
    expect(b.available(T0)).toBe(6);
    b.refund(T0, 100);
    expect(b.available(T0)).toBe(10);
    b.reconfigure(T0, { capacity: 4, refillPerSec: 100 });
    expect(b.available(T0)).toBe(4);
    expect(b.refillPerSec).toBe(100);
  });

  it('refuses invalid limits and counts', () => {
    expect(() => new TokenBucket({ capacity: 0, refillPerSec: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ capacity: 1, refillPerSec: -1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ capacity: Infinity, refillPerSec: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ capacity: 1, refillPerSec: 1 }).tryTake(T0, -1)).toThrow(RangeError);
    expect(() => new TokenBucket({ capacity: 1, refillPerSec: 1 }).tryTake(NaN)).toThrow(RangeError);
  });
});

describe('TokenBuckets (per tenant, per task queue)', () => {
  const limits: Record<string, TokenBucketOptions> = {
    'tenant:acme': { capacity: 5, refillPerSec: 10 },
    'queue:acme/billing': { capacity: 2, refillPerSec: 1 },
  };
  const make = () => new TokenBuckets({ limitsFor: (k) => limits[k] });
  const keys = ['tenant:acme', 'queue:acme/billing'];

  it('takes from both buckets or from neither', () => {
    const bs = make();
    expect(bs.tryTakeAll(T0, keys)).toBe(true);
    expect(bs.tryTakeAll(T0, keys)).toBe(true);
    expect(bs.tryTakeAll(T0, keys)).toBe(false); // the queue is empty …
    expect(bs.bucket('tenant:acme')?.available(T0)).toBe(3); // … so the tenant was not charged
    expect(bs.tryTakeAll(T0, ['tenant:acme'])).toBe(true); // another queue of the tenant still goes
    expect(bs.bucket('tenant:acme')?.available(T0)).toBe(2);
  });

  it('waits for the slowest bucket', () => {
    const bs = make();
    bs.tryTakeAll(T0, keys, 2);
    expect(bs.msUntilAvailable(T0, keys)).toBe(1000); // queue: 1/s; tenant still has 3
    expect(bs.tryTakeAll(T0 + 999, keys)).toBe(false);
    expect(bs.tryTakeAll(T0 + 1000, keys)).toBe(true);
  });

  it('treats keys without limits as unlimited, asks for limits once per key', () => {
    let asked = 0;
    const bs = new TokenBuckets({ limitsFor: (k) => (asked++, limits[k]) });
    for (let i = 0; i < 100; i++) expect(bs.tryTakeAll(T0, ['tenant:free'])).toBe(true);
    bs.tryTakeAll(T0, keys);
    bs.tryTakeAll(T0, keys);
    expect(asked).toBe(3);
    expect(bs.msUntilAvailable(T0, ['tenant:free'])).toBe(0);
  });

  it('charges a key listed twice twice', () => {
    const bs = make();
    expect(bs.tryTakeAll(T0, ['queue:acme/billing', 'queue:acme/billing'])).toBe(true);
    expect(bs.tryTakeAll(T0, ['queue:acme/billing'])).toBe(false);
  });

  it('refunds, reconfigures and prunes full buckets', () => {
    const bs = make();
    bs.tryTakeAll(T0, keys);
    bs.refundAll(T0, keys);
    expect(bs.bucket('queue:acme/billing')?.available(T0)).toBe(2);
    bs.configure(T0, 'queue:acme/billing', { capacity: 1, refillPerSec: 1 });
    expect(bs.bucket('queue:acme/billing')?.available(T0)).toBe(1);
    bs.configure(T0, 'queue:acme/billing', undefined);
    expect(bs.bucket('queue:acme/billing')).toBeUndefined();
    bs.tryTakeAll(T0, ['tenant:acme']);
    expect(bs.prune(T0)).toBe(1); // the lifted queue entry; the tenant bucket is not full
    expect(bs.prune(T0 + 1000)).toBe(1); // refilled: nothing to remember
    expect(bs.size).toBe(0);
  });
});
