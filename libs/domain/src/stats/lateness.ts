import type { RunCause } from '../types';

/** The columns a run's lateness is read from. */
export interface TimedRun {
  /** A BACKFILL run is late on purpose (a past fire run now): it has no lateness. */
  cause?: RunCause;
  attempt: number;
  scheduledAt: number;
  dueAt: number;
  dispatchedAt: number | null;
  /** A retried run: when its first attempt went out (the row's dispatchedAt is its latest's); null or absent on a first attempt. */
  firstDispatchedAt?: number | null;
  /** runs.hand_backs: how many of its attempts were handed back (sent ahead, never started by their executor); absent: none. */
  handBacks?: number;
  /** runs.late_from_at: on a first attempt, when its own keys admitted it after holding it back (a rate key's token, a concurrency key's place); null or absent: never held back. */
  lateFromAt?: number | null;
}

/**
 * How late a run's first attempt went out (scheduled → dispatched), or null; never negative. A
 * run sent ahead of its instant is recorded as dispatched at that instant (or when its request
 * left, if later) once its executor accepted it; before that mark is written its row holds when it
 * was marked, ahead of the instant: 0, on time — sending ahead is by design, and an early start is
 * counted apart (startedEarlyBy). The engine's clock, not the executor's: a wait in the executor's queue is in
 * the run's timeline (dispatched → started). A retried run's row
 * holds its latest attempt, whose dispatch waited for the retry backoff on purpose: counting it
 * as lateness showed a p95 "late" of 1.85 s with nothing late (issue 13). Its wait is retryWait.
 * Its first attempt's dispatch is kept (firstDispatchedAt), so a retried run has a lateness too
 * (issue 24: a task whose runs all retried showed "— / —").
 * A first attempt its own keys held back (a rate key's token, a concurrency key's place: the
 * task's own rules) is late from its admission (lateFromAt), as START_LATE counts it: else a rate
 * key of one a second fed 30 events at once would count up to 29 s of its own wait as lateness. A retried run's row no
 * longer holds its first attempt's admission (a retry's late_from_at is its own instant): its
 * lateness counts from its fire time, key waits included.
 * An attempt handed back (sent ahead, never started by its executor) is not the run's first: it
 * never started, and its dispatch — recorded at its instant — said 0 for a run that started 30 s
 * late. The attempt sent after it is the same start sent again (its lateFromAt kept), measured as
 * a first attempt is; its dispatch is the one a retry keeps in firstDispatchedAt.
 */
export function firstAttemptLateness(run: TimedRun): number | null {
  if (run.cause === 'BACKFILL') return null;
  if (countedAttempt(run) === 1) return run.dispatchedAt === null ? null : Math.max(0, run.dispatchedAt - (run.lateFromAt ?? run.scheduledAt));
  const first = run.firstDispatchedAt ?? null;
  return first === null ? null : Math.max(0, first - run.scheduledAt);
}

/** How long a run on a retry attempt has waited for it since it was scheduled (the backoffs), or null on its first attempt (an attempt sent again after a hand-back is no retry). */
export function retryWait(run: TimedRun): number | null {
  return countedAttempt(run) > 1 ? run.dueAt - run.scheduledAt : null;
}

/** Which attempt the run is on, not counting those handed back: 1 while none that counts has ended. */
function countedAttempt(run: TimedRun): number {
  return run.attempt - (run.handBacks ?? 0);
}

/**
 * How far before its instant a start may be and still count as on time: a timer that fires a
 * millisecond early, and the executor's clock measured against its engine's to within this.
 */
export const EARLY_START_TOLERANCE_MS = 20;

/**
 * How many ms before its instant an attempt started, when that is more than the tolerance (an
 * early start: a defect — a re-send that lost the instant, a skewed clock); else null (on time,
 * late, or not started).
 */
export function startedEarlyBy(instant: number, startedAt: number | null): number | null {
  if (startedAt === null) return null;
  const early = instant - startedAt;
  return early > EARLY_START_TOLERANCE_MS ? early : null;
}
