import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES, REJECTION_APPLIED_WITHIN_MS } from '@baton/domain';
import { execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { STAMPS_BY_CANCEL, stampsByCancelParams } from '../../runs/stamps-by-cancel';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_RUN = runWrite('cancelRun', ACTIVE_STATES, 'CANCELLED');

/**
 * A user cancels one run of their tenant (POST /api/runs/{id}/cancel):
 *
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?, <STAMPS_BY_CANCEL>
 *    WHERE id = ? AND tenant_id = ? AND state IN (PENDING, CLAIMED, DISPATCHED, ACCEPTED, RETRY_WAIT, APPROVAL_WAIT, …)
 *      AND NOT EXISTS (SELECT 1 FROM run_approvals a WHERE a.run_id = runs.id AND runs.state = 'APPROVAL_WAIT'
 *                        AND (a.decision = 'REJECT' OR (a.decision IS NULL AND a.on_timeout = 'REJECT' AND a.deadline_at <= ?))
 *                        AND a.due_at > ? - REJECTION_APPLIED_WITHIN_MS)
 *
 * One guarded update, so it cannot race a callback into moving a finished run: whichever comes
 * first wins, the other matches nothing. A run already dispatched may still be executing: the
 * engine sends the abort when it next touches the run and finds it CANCELLED. True if it moved.
 *
 * A waiting run that has been rejected — by a person, or by its deadline (onTimeout REJECT) before
 * an engine recorded it — is not cancelled: its rejection is decided, the engines end it FAILED
 * with its alarm and ON_FAILURE children, and a cancel in between would silently drop that path.
 * Only while it is being carried out, though: a rejection due (`due_at`: the person's decision, or
 * the deadline) more than REJECTION_APPLIED_WITHIN_MS ago that no engine has carried out has no
 * engine serving the group, and the run would wait for one, uncancellable: the cancel ends it.
 * The guard is in the update (the subquery reads run_approvals as last committed, with a lock, so a
 * rejection committed after this transaction's first read is seen; decideRunApproval guards the
 * other way round), so two consoles racing cannot get around it. An approved run is PENDING, and
 * cancelled as any run about to start.
 */
export async function cancelRun(manager: EntityManager, input: { runId: number; tenantId: string; now: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', finished_at = ?, updated_at = ?, ${STAMPS_BY_CANCEL} WHERE id = ? AND tenant_id = ? AND ${stateIn(CANCEL_RUN)}
        AND NOT EXISTS (SELECT 1 FROM run_approvals a WHERE a.run_id = runs.id AND ${stateIn(CANCEL_RUN, ['APPROVAL_WAIT'], 'runs.state')}
                          AND (a.decision = 'REJECT' OR (a.decision IS NULL AND a.on_timeout = 'REJECT' AND a.deadline_at <= ?))
                          AND a.due_at > ?)`,
    [input.now, input.now, ...stampsByCancelParams(input.now), input.runId, input.tenantId, input.now, input.now - REJECTION_APPLIED_WITHIN_MS],
  );
  return affected > 0;
}
