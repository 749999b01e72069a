import type { Millis, RetryPolicy } from '../types';

export type RetryDecision =
  /** Retry: the same run row goes to RETRY_WAIT, due at `dueAt`, as attempt `nextAttempt`. */
  | { retry: true; dueAt: Millis; delayMs: number; nextAttempt: number }
  /** Attempts are used up, or the failure is not retryable: the run ends FAILED (or TIMED_OUT). */
  | { retry: false };

/**
 * Whether a failed (or timed-out) attempt is retried, and when.
 *
 * `attempt` is the 1-based attempt that just failed. The backoff before attempt n + 1 is
 * base × 2^(n−1), capped at backoffMaxMs. Jitter then takes a random share of up to
 * `jitter × delay` *off* the delay: the result lies in ((1 − jitter) × delay, delay], so the
 * cap stays a true upper bound while a burst of failures still spreads out.
 * `random` is injected (Math.random in production, a fixed function in tests) and must return
 * a number in [0, 1).
 * `retryable` false (default true): the failure says retrying cannot help (an executor's
 * NonRetryableError, a run that cannot be dispatched at all), so no attempt is left, whatever
 * the policy allows.
 * `instant` (default `now`): the failed attempt's instant — the run's fire time for a first
 * attempt. The next attempt is never due before it: an attempt can fail before its instant (sent
 * ahead and refused by every executor, or dropped by an executor shutting down), and a run never
 * starts before its instant, whatever was retried. `delayMs` is then the wait from `now`.
 */
export function retryDecision(policy: RetryPolicy, attempt: number, now: Millis, random: () => number, retryable = true, instant: Millis = now): RetryDecision {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer ≥ 1, got ${attempt}`);
  if (!retryable || attempt >= policy.maxAttempts) return { retry: false };
  const dueAt = Math.max(now + backoffDelay(policy, attempt, random()), instant);
  return { retry: true, dueAt, delayMs: dueAt - now, nextAttempt: attempt + 1 };
}

/** The jittered backoff after `attempt`, in whole milliseconds, for a given random draw. */
export function backoffDelay(policy: RetryPolicy, attempt: number, draw: number): number {
  // 2^(attempt−1) overflows to Infinity for huge attempts; the cap absorbs that, but 0 × ∞ is
  // NaN, hence the explicit zero base.
  const exponential = policy.backoffBaseMs === 0 ? 0 : policy.backoffBaseMs * 2 ** (attempt - 1);
  const capped = Math.min(exponential, policy.backoffMaxMs);
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  const share = Math.min(1, Math.max(0, draw)); // a misbehaving random() cannot push past the bounds
  return Math.round(capped * (1 - jitter * share));
}
