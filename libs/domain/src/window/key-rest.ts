import type { KeyRateLimit, KeyThrottle, Millis } from '../types';
import { takeKeyTokens, type KeyBucket } from '../key/key-bucket';
import { currentThrottlePeriod, type ThrottlePeriod } from './throttle-window';

/** What a key's row stores beyond its lock: its token bucket and its throttle period (null: none). */
export interface StoredKeyState {
  bucket: KeyBucket | null;
  throttle: ThrottlePeriod | null;
}

/**
 * (Here rather than in key/: it reads a throttle period, and window/ builds on key/.)
 *
 * Whether a key's stored state says nothing at `now` that a key never seen would not: its bucket
 * has refilled to its burst (or its task no longer limits the rate) and no throttle period of it
 * is going (or its task no longer throttles). Such a row may be deleted (the retention purge): the
 * next run of the key makes it again, full and fresh, and decides as it would have. A concurrency
 * key's row holds nothing of its own (its going runs are counted from the runs), so it is at rest
 * whenever the rest is.
 */
export function keyAtRest(
  stored: StoredKeyState,
  rules: { rateLimit: Pick<KeyRateLimit, 'perSecond' | 'burst'> | null; throttle: Pick<KeyThrottle, 'periodMs'> | null },
  now: Millis,
): boolean {
  const full = stored.bucket === null || rules.rateLimit === null || takeKeyTokens(stored.bucket, rules.rateLimit, 0, now).bucket.tokens >= rules.rateLimit.burst - 1e-9;
  const over = stored.throttle === null || rules.throttle === null || currentThrottlePeriod(stored.throttle, rules.throttle.periodMs, now) === null;
  return full && over;
}
