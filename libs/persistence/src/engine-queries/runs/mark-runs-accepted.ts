import type { EntityManager } from 'typeorm';
import { caseById, execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import type { AckTimes } from './ack-times';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const MARK_RUNS_ACCEPTED = runWrite('markRunsAccepted', ['DISPATCHED'], 'ACCEPTED');

export interface AcceptedRun extends AckTimes {
  runId: number;
  attempt: number;
  /** acceptedAt + the task's timeout. */
  deadlineAt: number;
}

/**
 * The executors answered 202: DISPATCHED → ACCEPTED, for the acks of a node's slots in one
 * statement (the dispatcher batches acks that arrive together):
 *
 *   UPDATE runs SET state = 'ACCEPTED', dispatched_at = <by id>,
 *                   accepted_at = <by id>,
 *                   deadline_at = <by id>, updated_at = ?
 *    WHERE id IN (…) AND state = 'DISPATCHED' AND claimed_by = ? AND attempt = <by id>
 *   -- <by id>: each row's own value (caseById: `?` when all rows share it)
 *
 * The callback can overtake the ack (a 1 ms handler calls back, maybe to another engine,
 * before this update runs): the run is then SUCCEEDED/FAILED/RETRY_WAIT already and its row
 * does not match — which is fine, the ack has nothing left to say. `attempt` and `claimed_by`
 * keep a late ack of an old attempt, or of a run taken over meanwhile, from touching the row.
 * The timeout is re-based on the ack (accepted_at + timeout), as the task's timeout means
 * "running for longer than this". dispatched_at, written when the run was marked DISPATCHED
 * before the POST, becomes the moment the accepted request left: the run's timeline shows when
 * the executor was asked, not when the engine meant to ask (in a 4,000-run burst, hundreds of
 * ms apart). One statement for many runs: see markRunsDispatched.
 * Returns how many rows moved.
 */
export async function markRunsAccepted(manager: EntityManager, input: { nodeId: string; now: number; runs: readonly AcceptedRun[] }): Promise<number> {
  const { runs, nodeId, now } = input;
  if (runs.length === 0) return 0;
  const byId = (pick: (r: AcceptedRun) => number) => caseById(runs, (r) => r.runId, pick);
  const sentAt = byId((r) => r.sentAt);
  const acceptedAt = byId((r) => r.acceptedAt);
  const deadline = byId((r) => r.deadlineAt);
  const attempt = byId((r) => r.attempt);
  const ids = runs.map((r) => r.runId);
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'ACCEPTED', dispatched_at = ${sentAt.sql}, accepted_at = ${acceptedAt.sql}, deadline_at = ${deadline.sql}, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(MARK_RUNS_ACCEPTED)} AND claimed_by = ? AND attempt = ${attempt.sql}`,
    [...sentAt.params, ...acceptedAt.params, ...deadline.params, now, ...ids, nodeId, ...attempt.params],
  );
  return affected;
}
