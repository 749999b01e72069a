import type { DispatchRequest } from '@baton/protocol';

/**
 * A dispatch as it leaves at `now` (the engine's corrected time): its times relative to then, which
 * its executor counts from the request's arrival on its own clock, so the two machines' clocks
 * need not agree and the transit only makes them later. `deadlineInMs`: the time left until its
 * deadline. `startInMs` (a run sent ahead, `startAt` its instant): how long its executor is to
 * hold it. Counted from the moment it leaves, not from when the request was made: a wait in a
 * batcher's line (batches in flight under a burst: hundreds of milliseconds) would otherwise be
 * added to both.
 */
export function leaving(request: DispatchRequest, now: number, startAt?: number): DispatchRequest {
  const out: DispatchRequest = { ...request, deadlineInMs: Math.max(0, request.deadline - now) };
  if (startAt !== undefined && startAt > now) out.startInMs = startAt - now;
  return out;
}
