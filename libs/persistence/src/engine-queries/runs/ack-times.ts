/**
 * An executor's 202 as the dispatcher saw it: when the accepted request left the engine
 * (`sentAt`, the run's dispatched_at) and when the answer came (`acceptedAt`). Written by the
 * ACCEPTED mark (markRunsAccepted) or, when the engine held the mark back (BATON_ACK_HOLD_MS) and
 * the outcome came first, by the outcome's own write (finishRunAttempt, finishSucceededRuns,
 * retryRunAttempt): the run's timeline is the same either way, one row write fewer.
 */
export interface AckTimes {
  sentAt: number;
  acceptedAt: number;
}
