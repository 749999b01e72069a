import type { KeyRateLimit, Millis } from '../types';

/** A key's token bucket as stored: tokens left as of `at`. */
export interface KeyBucket {
  tokens: number;
  at: Millis;
}

/**
 * Takes up to `wanted` tokens from a key's bucket at `now`: the bucket first refills at
 * `perSecond` (never above `burst`; a new key's bucket, null, is full), then gives what it has in
 * whole tokens. Returns how many were taken, the bucket to store, and when the next token will be
 * there (`now` when one is left).
 */
export function takeKeyTokens(bucket: KeyBucket | null, rate: Pick<KeyRateLimit, 'perSecond' | 'burst'>, wanted: number, now: Millis): { taken: number; bucket: KeyBucket; nextAt: Millis } {
  const elapsed = bucket ? Math.max(0, now - bucket.at) : 0;
  const before = bucket ? Math.min(rate.burst, bucket.tokens + (elapsed * rate.perSecond) / 1000) : rate.burst;
  const taken = Math.max(0, Math.min(wanted, Math.floor(before + 1e-9)));
  const tokens = before - taken;
  const nextAt = tokens >= 1 - 1e-9 ? now : now + Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate.perSecond - 1e-6));
  return { taken, bucket: { tokens, at: now }, nextAt };
}
