import type { KeyThrottle, Millis } from '../types';

/** A throttled key's current period as stored (run_keys): when it began, the runs started in it, and its trailing run. */
export interface ThrottlePeriod {
  startedAt: Millis;
  /** Runs started (or due) in it, the trailing run of the period before included. */
  count: number;
  /** When the run the period's extra submissions folded into (keep LAST) starts: the period's end; null: none. */
  trailingAt: Millis | null;
}

/**
 * What a submission of a throttled key does:
 * - START: a run now (one of the period's `limit`);
 * - DROP: nothing (keep FIRST, the period is full);
 * - COALESCE: it folds into the period's trailing run, due at `dueAt` (the period's end), which
 *   takes its params (keep LAST, the period is full).
 */
export type ThrottleAction = { action: 'START' } | { action: 'DROP' } | { action: 'COALESCE'; dueAt: Millis };

/**
 * A throttled key's decision for a submission at `now`, and the period to store. A period lasts
 * `periodMs` from its first submission; the next begins with the first submission after it —
 * except after a trailing run, which starts the next period at the instant it is due and counts as
 * its first run (so at most `limit` runs start in any period, the trailing one included).
 */
export function throttleDecision(stored: ThrottlePeriod | null, rule: Pick<KeyThrottle, 'limit' | 'periodMs' | 'keep'>, now: Millis): { decision: ThrottleAction; period: ThrottlePeriod } {
  const period = currentThrottlePeriod(stored, rule.periodMs, now) ?? { startedAt: now, count: 0, trailingAt: null };
  if (period.count < rule.limit) return { decision: { action: 'START' }, period: { ...period, count: period.count + 1 } };
  if (rule.keep === 'FIRST') return { decision: { action: 'DROP' }, period };
  const dueAt = period.startedAt + rule.periodMs;
  return { decision: { action: 'COALESCE', dueAt }, period: { ...period, trailingAt: dueAt } };
}

/**
 * The period a stored one has become at `now`: itself while it lasts, then the period its trailing
 * run started (counting that run), or null once none is going (the next submission starts one).
 */
export function currentThrottlePeriod(stored: ThrottlePeriod | null, periodMs: number, now: Millis): ThrottlePeriod | null {
  let period = stored;
  while (period !== null && now >= period.startedAt + periodMs) {
    period = period.trailingAt === null ? null : { startedAt: period.trailingAt, count: 1, trailingAt: null };
  }
  return period;
}
