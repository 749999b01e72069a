import { RetryLaterError } from './retry-later-error';

/** 429 RATE_LIMITED: the tenant already has `waiting` (MAX_HEAVY_WAITING) heavy requests waiting; `Retry-After` is 1 s. */
export class HeavyWorkQueueFullError extends RetryLaterError {
  constructor(waiting: number) {
    super(`Too many heavy requests of this tenant at once (run searches, log downloads, exports, plans, applies, backfills: one runs at a time, ${waiting} may wait); retry when one has answered`, 1);
  }
}
