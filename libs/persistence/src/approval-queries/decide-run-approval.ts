import type { EntityManager } from 'typeorm';
import type { ApprovalOutcome } from '@baton/domain';
import { execute } from '../engine-queries/sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Guarded by the run's state, which it leaves as it is (the moves are releaseApprovedRun's and rejectWaitingRun's). */
export const DECIDE_WAITING_RUN = runWrite('decideRunApproval', ['APPROVAL_WAIT'], 'same');

/**
 * Records the decision on a waiting run, once:
 *
 *   UPDATE run_approvals SET decision = ?, decided_by = ?, decided_at = ?, comment = ?, due_at = ?
 *    WHERE run_id = ? AND tenant_id = ? AND decision IS NULL [AND deadline_at > :now]   -- [a person's]
 *      AND EXISTS (SELECT 1 FROM runs r WHERE r.id = run_approvals.run_id AND r.state = 'APPROVAL_WAIT')
 *
 * The guard `decision IS NULL` is the election between two people deciding at once, or a person and
 * the deadline: one matches, the other gets false and changes nothing (409). The run's state is in
 * the guard too: a run cancelled meanwhile (cancelRun, committed after the caller read it) is not
 * decided, so no run ends CANCELLED with a rejection on it that nothing will carry out; with
 * cancelRun's own guard, of a rejection and a cancel one wins whatever the order. `dueAt`: when an engine
 * must still act on it (a person's rejection: now), or null (nothing left). A person's
 * decision (`decidedBy` set) matches only while the deadline is still ahead of `now`: from it on,
 * the deadline decides, even before an engine has recorded it. By primary key.
 */
export async function decideRunApproval(
  manager: EntityManager,
  input: { runId: number; tenantId: string; decision: ApprovalOutcome; decidedBy: string | null; comment: string | null; dueAt: number | null; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE run_approvals SET decision = ?, decided_by = ?, decided_at = ?, comment = ?, due_at = ?
      WHERE run_id = ? AND tenant_id = ? AND decision IS NULL${input.decidedBy === null ? '' : ' AND deadline_at > ?'}
        AND EXISTS (SELECT 1 FROM runs r WHERE r.id = run_approvals.run_id AND ${stateIn(DECIDE_WAITING_RUN, undefined, 'r.state')})`,
    [input.decision, input.decidedBy, input.now, input.comment, input.dueAt, input.runId, input.tenantId, ...(input.decidedBy === null ? [] : [input.now])],
  );
  return affected > 0;
}
