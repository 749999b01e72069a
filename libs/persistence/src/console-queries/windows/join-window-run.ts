import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move (none: the run stays COALESCING), checked against the run state machine (run-writes.spec.ts). */
export const JOIN_WINDOW_RUN = runWrite('joinWindowRun', ['COALESCING'], 'same');

/** A submission joining its key's open window. */
export interface WindowSubmission {
  tenantId: string;
  taskId: number;
  /** `w:<digest of the key>`: the open window's name in uq_runs_task_fire_key. */
  fireKey: string;
  /** JSON text of the submission's params: the run's from now on. */
  params: string | null;
  flowParams: string | null;
  /** When the window's run should start after this submission (never past the window's end). */
  dueAt: number;
  /** The window's end, for a window this submission opens (joining keeps the stored one). */
  until: number;
  now: number;
}

/**
 * A submission joins its key's open window: the COALESCING run takes its params, and its due
 * time moves to the submission's, never past the window's end (`window_until`):
 *
 *   UPDATE runs SET params = ?, flow_params = ?,
 *          due_at = CASE WHEN ? < window_until THEN ? ELSE window_until END, scheduled_at = (same), updated_at = ?
 *    WHERE task_id = ? AND fire_key = ? AND tenant_id = ? AND state = 'COALESCING'
 *
 * One row by the unique key (task_id, fire_key), so at most one open window per task and key. The
 * UPDATE is atomic and row-locking: two consoles joining the same window take turns on its row,
 * and an engine claiming the run meanwhile either takes it first (the UPDATE then matches nothing:
 * the state moved on, and the caller opens a new window) or after (with these params). The
 * scheduled time follows the due time: a window's wait is not its run's lateness.
 * Returns whether a window was open (joined).
 */
export async function joinWindowRun(manager: EntityManager, s: WindowSubmission): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET params = ?, flow_params = ?,
            due_at = CASE WHEN ? < window_until THEN ? ELSE window_until END,
            scheduled_at = CASE WHEN ? < window_until THEN ? ELSE window_until END,
            updated_at = ?
      WHERE task_id = ? AND fire_key = ? AND tenant_id = ? AND ${stateIn(JOIN_WINDOW_RUN)}`,
    [s.params, s.flowParams, s.dueAt, s.dueAt, s.dueAt, s.dueAt, s.now, s.taskId, s.fireKey, s.tenantId],
  );
  return affected > 0;
}
