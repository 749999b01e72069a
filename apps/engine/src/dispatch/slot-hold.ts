import type { ClaimedRun } from '../common/claimed-run';
import type { RunEvents } from '../runs/run-events';

/**
 * How long a dispatch slot is held once the executor has the run. Production: until the ack —
 * milliseconds, never the work's length (MTHPT's asynchronous dispatch). The bench's synchronous
 * baseline (`BATON_SYNCHRONOUS_DISPATCH`, slot-hold scenario) holds it until the run's outcome
 * reaches this node, to measure what the asynchronous ack saves. Chosen once, when the dispatch
 * module is built (dispatch.module.ts), so the send path has no flag to test.
 */
export interface SlotHold {
  /** Called as the run is sent; the slot is released when the returned promise settles (after the ack either way). */
  untilReleased(run: ClaimedRun): Promise<unknown> | null;
}

export const SLOT_HOLD = Symbol('SLOT_HOLD');

/** Released at the ack. */
export const RELEASE_AT_ACK: SlotHold = { untilReleased: () => null };

/** Released when the run's outcome callback reaches this node, or its timeout passes. */
export function releaseAtOutcome(events: RunEvents): SlotHold {
  return { untilReleased: (run) => events.waitFor(run.runId, run.attempt, run.timeoutMs) };
}
