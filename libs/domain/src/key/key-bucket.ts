import type { KeyRateLimit, Millis } from '../types';

/** A key's token bucket as stored: tokens left as of `at`. */
export interface KeyBucket {
  tokens: number;
  at: Millis;
}

/**
 * Takes up to `wanted` tokens from a key's bucket at `now`: the bucket first refills at
 * `perSecond` (never above `burst`; a new key's bucket, null, is full), then gives what it has in
 * whole tokens. Returns how many were taken, the bucket to store (whole thousandths of a token, as
 * of `at` ≤ `now`), and when the next token will be there (`now` when one is left).
 */
export function takeKeyTokens(bucket: KeyBucket | null, rate: Pick<KeyRateLimit, 'perSecond' | 'burst'>, wanted: number, now: Millis): { taken: number; bucket: KeyBucket; nextAt: Millis } {
  const elapsed = bucket ? Math.max(0, now - bucket.at) : 0;
  const before = bucket ? Math.min(rate.burst, bucket.tokens + (elapsed * rate.perSecond) / 1000) : rate.burst;
  const taken = Math.max(0, Math.min(wanted, Math.floor(before + 1e-9)));
  const tokens = before - taken;
  const nextAt = tokens >= 1 - 1e-9 ? now : now + Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate.perSecond - 1e-6));
  // The bucket is stored in whole thousandths of a token (run_keys.tokens_milli). What is below one
  // is kept as time instead — `at` set back by how long the rate takes to refill it — or a slow key
  // taken from more often than it earns a thousandth (1 a day, a claim every few seconds) lost its
  // refill at every take and never had a token again.
  const stored = Math.floor(tokens * 1000 + 1e-6) / 1000;
  const below = Math.max(0, tokens - stored);
  return { taken, bucket: { tokens: stored, at: now - Math.floor((below * 1000) / rate.perSecond) }, nextAt };
}
