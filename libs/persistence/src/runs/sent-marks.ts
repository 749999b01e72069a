/**
 * SQL: a run that may be at an executor although its state says it is not (PENDING, RETRY_WAIT or
 * CLAIMED) — it keeps a dispatch mark or an executor it may have reached:
 *
 *   (dispatched_at IS NOT NULL OR executor_id IS NOT NULL)
 *
 * - `dispatched_at`: its engine died after sending it; the takeover gives it back to PENDING with
 *   the mark (releaseRuns), and the executor may hold it until its instant and start it then;
 * - `executor_id`: a dispatch that got no answer (deferRunDispatch) points the run at that
 *   executor, which may have taken it.
 * A retry, a dispatch refused (returnRefusedRun) and one deferred after an answer clear both.
 * One rule for every write that acts on "this run was never sent" — a withdrawn prepared fire
 * deleted or its fire key freed (withdrawPreparedFires), a late run given up (giveUpLateRun) —
 * which test its NOT, and for the cancels that have a run aborted at its executor
 * (findCancelledSentRuns). `alias`: the runs table's, with its dot ('r.').
 */
export function keepsSentMark(alias = ''): string {
  return `(${alias}dispatched_at IS NOT NULL OR ${alias}executor_id IS NOT NULL)`;
}
