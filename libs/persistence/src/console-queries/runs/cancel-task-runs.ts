import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { execute, num } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { keepsSentMark } from '../../runs/sent-marks';
import { STAMPS_BY_CANCEL, stampsByCancelParams } from '../../runs/stamps-by-cancel';

/** The error of a run its task's deletion cancelled. */
export const TASK_DELETED = 'Cancelled: its task was deleted';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_TASK_RUNS = runWrite('cancelTaskRuns', ACTIVE_STATES, 'CANCELLED');

/**
 * A task is deleted: its runs that are not over end CANCELLED in the same transaction, so no
 * engine dispatches a run of a task that no longer exists (one that holds such a run in memory
 * finds it CANCELLED and drops it):
 *
 *   SELECT id, engine_group FROM runs WHERE task_id = ? AND tenant_id = ?
 *      AND (state IN (CLAIMED, DISPATCHED, ACCEPTED) OR state IN (…every active state…) AND <keepsSentMark>)
 *   UPDATE runs SET state = 'CANCELLED', error = ?, finished_at = ?, updated_at = ?, <STAMPS_BY_CANCEL>
 *    WHERE task_id = ? AND tenant_id = ? AND state IN (PENDING, CLAIMED, DISPATCHED, ACCEPTED, RETRY_WAIT)
 *
 * Each says why (TASK_DELETED), as a withdrawn fire does: a run that ended CANCELLED with no error
 * left its reader guessing who cancelled it. A waiting run with a sent mark (keepsSentMark: its
 * engine died after sending it, or its dispatch got no answer) may be at an executor too. Returns how many runs it cancelled, and those an engine may have sent — executing, or waiting
 * at their executor for their instant — for the caller to have them aborted there after the commit.
 */
export async function cancelTaskRuns(
  manager: EntityManager,
  input: { taskId: number; tenantId: string; now: number },
): Promise<{ cancelled: number; maybeSent: Array<{ runId: number; engineGroup: string }> }> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, engine_group FROM runs WHERE task_id = ? AND tenant_id = ?
        AND (${stateIn(CANCEL_TASK_RUNS, ['CLAIMED', 'DISPATCHED', 'ACCEPTED'])} OR ${stateIn(CANCEL_TASK_RUNS)} AND ${keepsSentMark()}) ORDER BY id`,
    [input.taskId, input.tenantId],
  );
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', error = ?, finished_at = ?, updated_at = ?, ${STAMPS_BY_CANCEL} WHERE task_id = ? AND tenant_id = ? AND ${stateIn(CANCEL_TASK_RUNS)}`,
    [TASK_DELETED, input.now, input.now, ...stampsByCancelParams(input.now), input.taskId, input.tenantId],
  );
  return { cancelled: affected, maybeSent: rows.map((r) => ({ runId: num(r.id), engineGroup: String(r.engine_group) })) };
}
