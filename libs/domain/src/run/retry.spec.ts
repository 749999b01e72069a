import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../types';
import { backoffDelay, retryDecision } from './retry';

const NOW = 1_700_000_000_000;
const noJitter: RetryPolicy = { maxAttempts: 10, backoffBaseMs: 1_000, backoffMaxMs: 60_000, jitter: 0 };
const zero = () => 0;

/** A small deterministic PRNG (mulberry32) so the jitter test samples many draws reproducibly. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('retryDecision', () => {
  it('never retries with maxAttempts 1', () => {
    expect(retryDecision({ ...noJitter, maxAttempts: 1 }, 1, NOW, zero)).toEqual({ retry: false });
  });

  it('retries until the last attempt has failed', () => {
    const policy = { ...noJitter, maxAttempts: 3 };
    expect(retryDecision(policy, 1, NOW, zero)).toMatchObject({ retry: true, nextAttempt: 2 });
    expect(retryDecision(policy, 2, NOW, zero)).toMatchObject({ retry: true, nextAttempt: 3 });
    expect(retryDecision(policy, 3, NOW, zero)).toEqual({ retry: false });
    expect(retryDecision(policy, 4, NOW, zero)).toEqual({ retry: false });
  });

  it('doubles the delay from the base: 1 s before attempt 2, then 2 s, 4 s, 8 s', () => {
    const delays = [1, 2, 3, 4].map((attempt) => retryDecision(noJitter, attempt, NOW, zero));
    expect(delays).toEqual([
      { retry: true, dueAt: NOW + 1_000, delayMs: 1_000, nextAttempt: 2 },
      { retry: true, dueAt: NOW + 2_000, delayMs: 2_000, nextAttempt: 3 },
      { retry: true, dueAt: NOW + 4_000, delayMs: 4_000, nextAttempt: 4 },
      { retry: true, dueAt: NOW + 8_000, delayMs: 8_000, nextAttempt: 5 },
    ]);
  });

  it('is never due before the failed attempt’s instant: an attempt refused 10 s ahead of it waits for it, not for the backoff alone', () => {
    expect(retryDecision(noJitter, 1, NOW, zero, true, NOW + 10_000)).toEqual({ retry: true, dueAt: NOW + 10_000, delayMs: 10_000, nextAttempt: 2 });
    // The backoff past the instant wins.
    expect(retryDecision(noJitter, 1, NOW, zero, true, NOW + 400)).toEqual({ retry: true, dueAt: NOW + 1_000, delayMs: 1_000, nextAttempt: 2 });
    // An instant passed changes nothing.
    expect(retryDecision(noJitter, 3, NOW, zero, true, NOW - 60_000)).toEqual({ retry: true, dueAt: NOW + 4_000, delayMs: 4_000, nextAttempt: 4 });
    const random = seeded(3);
    for (let i = 0; i < 1_000; i++) {
      const instant = NOW + Math.floor(random() * 20_000) - 10_000;
      const d = retryDecision({ ...noJitter, jitter: 1 }, 1 + (i % 5), NOW, random, true, instant);
      if (!d.retry) throw new Error('expected a retry');
      expect(d.dueAt).toBeGreaterThanOrEqual(instant);
      expect(d.dueAt).toBe(NOW + d.delayMs);
    }
  });

  it('caps the delay at backoffMaxMs', () => {
    expect(backoffDelay(noJitter, 6, 0)).toBe(32_000);
    expect(backoffDelay(noJitter, 7, 0)).toBe(60_000); // 64 s capped
    expect(backoffDelay(noJitter, 99, 0)).toBe(60_000);
    expect(backoffDelay(noJitter, 5_000, 0)).toBe(60_000); // 2^4999 is Infinity; still the cap
  });

  it('keeps a zero base at zero for any attempt (no NaN from 0 × ∞)', () => {
    expect(backoffDelay({ ...noJitter, backoffBaseMs: 0 }, 5_000, 0.5)).toBe(0);
  });

  it('takes at most the jitter share off the delay, never adding to it', () => {
    const policy: RetryPolicy = { maxAttempts: 100, backoffBaseMs: 1_000, backoffMaxMs: 10_000, jitter: 0.2 };
    expect(backoffDelay(policy, 1, 0)).toBe(1_000);
    expect(backoffDelay(policy, 1, 0.5)).toBe(900);
    expect(backoffDelay(policy, 1, 0.999999)).toBe(800);
    const random = seeded(42);
    for (let i = 0; i < 2_000; i++) {
      const attempt = 1 + (i % 8);
      const full = Math.min(1_000 * 2 ** (attempt - 1), 10_000);
      const d = retryDecision(policy, attempt, NOW, random);
      if (!d.retry) throw new Error('expected a retry');
      expect(d.delayMs).toBeGreaterThanOrEqual(Math.round(full * 0.8));
      expect(d.delayMs).toBeLessThanOrEqual(full);
      expect(d.dueAt).toBe(NOW + d.delayMs);
    }
  });

  it('actually spreads delays when jitter is on', () => {
    const policy: RetryPolicy = { maxAttempts: 5, backoffBaseMs: 10_000, backoffMaxMs: 10_000, jitter: 0.5 };
    const random = seeded(7);
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(policy, 1, random())));
    expect(delays.size).toBeGreaterThan(25);
  });

  it('with jitter 1 the delay can shrink to nearly zero but not below', () => {
    const policy: RetryPolicy = { ...noJitter, jitter: 1 };
    expect(backoffDelay(policy, 1, 0.9999)).toBe(0);
    expect(backoffDelay(policy, 1, 0.5)).toBe(500);
  });

  it('clamps a misbehaving random() into [0, 1]', () => {
    const policy: RetryPolicy = { ...noJitter, jitter: 0.2 };
    expect(backoffDelay(policy, 1, -3)).toBe(1_000);
    expect(backoffDelay(policy, 1, 7)).toBe(800);
  });

  it('never retries a failure that is not retryable, whatever attempts are left', () => {
    expect(retryDecision(noJitter, 1, NOW, zero, false)).toEqual({ retry: false });
    expect(retryDecision(noJitter, 1, NOW, zero, true)).toMatchObject({ retry: true, nextAttempt: 2 });
  });

  it('rejects an attempt that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => retryDecision(noJitter, bad, NOW, zero)).toThrow(RangeError);
  });

  it('draws randomness only when it retries', () => {
    let draws = 0;
    retryDecision({ ...noJitter, maxAttempts: 1 }, 1, NOW, () => {
      draws++;
      return 0;
    });
    expect(draws).toBe(0);
  });
});
