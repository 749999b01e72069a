import type { KeyOnLimit } from '../types';

/** What becomes of the claimed runs of one key that do not hold a place yet. */
export interface KeyAdmission<T> {
  /** Take a place and go on to dispatch. */
  admit: T[];
  /** Wait HELD for a place (QUEUE). */
  hold: T[];
  /** End CANCELLED (CANCEL_NEW). */
  cancel: T[];
  /** How many of the key's going runs, oldest first, to cancel to make room (CANCEL_OLDEST). */
  cancelOldest: number;
}

/**
 * The concurrency bound of one key at a claim: `going` runs of the key hold places already
 * (KEY_GOING_STATES), `limit` is the task's bound, and `claimed` are the key's newly claimed runs,
 * oldest first. The free places go to the oldest claimed runs; the rest follow `onLimit`:
 * QUEUE holds them, CANCEL_NEW cancels them, CANCEL_OLDEST admits them too and cancels as many of
 * the going runs (oldest first) as it takes beyond the limit — but never more runs than `limit` go at once, so of a batch
 * larger than the limit only the newest `limit` go and the older claimed ones are cancelled.
 */
export function admitKeyed<T>(input: { limit: number; onLimit: KeyOnLimit; going: number; claimed: readonly T[] }): KeyAdmission<T> {
  const free = Math.max(0, input.limit - input.going);
  const claimed = [...input.claimed];
  if (input.onLimit !== 'CANCEL_OLDEST') {
    const admit = claimed.slice(0, free);
    const rest = claimed.slice(free);
    return input.onLimit === 'QUEUE' ? { admit, hold: rest, cancel: [], cancelOldest: 0 } : { admit, hold: [], cancel: rest, cancelOldest: 0 };
  }
  const admitted = Math.min(claimed.length, input.limit);
  const admit = claimed.slice(claimed.length - admitted);
  const cancel = claimed.slice(0, claimed.length - admitted);
  return { admit, hold: [], cancel, cancelOldest: Math.max(0, input.going + admitted - input.limit) };
}

/**
 * Which of a key's held runs, oldest first, take the places its going runs left: each takes one
 * while the key's `going` runs are fewer than its own task's `limit` (the tasks of a key group may
 * state different limits: a run is admitted against its own, at a claim as here). A run whose task
 * no longer bounds this key (`limit` null: its bound removed or moved to another group, its task
 * deleted) goes without waiting, and counts from then on. The first run that finds no place ends
 * the release (`full`): no held run overtakes an older one of its key.
 */
export function releaseKeyed<T>(going: number, held: ReadonlyArray<{ run: T; limit: number | null }>): { release: T[]; going: number; full: boolean } {
  const release: T[] = [];
  for (const { run, limit } of held) {
    if (limit !== null && going >= limit) return { release, going, full: true };
    release.push(run);
    going++;
  }
  return { release, going, full: false };
}
