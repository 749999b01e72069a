import { backoffDelay, type RetryPolicy } from '@baton/domain';

/**
 * When a run could not be handed to any executor (all busy, unreachable, none UP), it goes
 * back to RETRY_WAIT for this long — WITHOUT spending an attempt of the task's retry policy:
 * the handler never started, the trouble is the platform's (capacity, network, a deploy), and
 * a task with "no retries" must not fail because its executors were briefly full. Runs whose
 * executors REFUSED them (4xx: unknown handler, bad request) are different: that is a failed
 * attempt under the task's policy (see Dispatcher).
 *
 * Exponential with jitter, capped: the delay follows how long the run has been waiting for a
 * dispatch (now − its instant; 500 ms for a run refused before its instant, sent ahead), doubling
 * in steps from 500 ms to 30 s. It delays the run's next send only: its instant stays (runs.instant_at),
 * and the send carries it (startInMs), so a run sent again never starts before it. The run row has no
 * dispatch-failure counter and needs none: the wait so far IS the count — each deferral
 * roughly doubles it. The run is never given up: it waits until an executor takes it or
 * someone cancels it, and the watchdog's START_LATE alarm tells people it is stuck.
 */
export const DISPATCH_BACKOFF: RetryPolicy = { maxAttempts: Number.MAX_SAFE_INTEGER, backoffBaseMs: 500, backoffMaxMs: 30_000, jitter: 0.2 };

export function dispatchBackoffMs(waitingMs: number, random: () => number): number {
  const step = 1 + Math.floor(Math.log2(Math.max(1, waitingMs / DISPATCH_BACKOFF.backoffBaseMs)));
  return Math.max(1, backoffDelay(DISPATCH_BACKOFF, step, random()));
}
