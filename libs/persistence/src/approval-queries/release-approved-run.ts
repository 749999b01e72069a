import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const RELEASE_APPROVED_RUN = runWrite('releaseApprovedRun', ['APPROVAL_WAIT'], 'PENDING');

/**
 * An approved run goes on: APPROVAL_WAIT → PENDING, due now, so the next claim (or the wake-up
 * naming it) takes it at once:
 *
 *   UPDATE runs SET state = 'PENDING', scheduled_at = ?, due_at = ?, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND state IN ('APPROVAL_WAIT')
 *
 * Its fire time becomes the approval's: the wait for a person is not lateness (START_LATE and the
 * lateness statistics count from here). By primary key; false when the run no longer waits
 * (cancelled meanwhile), and nothing is written.
 */
export async function releaseApprovedRun(manager: EntityManager, input: { runId: number; tenantId: string; now: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'PENDING', scheduled_at = ?, due_at = ?, updated_at = ?
      WHERE id = ? AND tenant_id = ? AND ${stateIn(RELEASE_APPROVED_RUN)}`,
    [input.now, input.now, input.now, input.runId, input.tenantId],
  );
  return affected > 0;
}
