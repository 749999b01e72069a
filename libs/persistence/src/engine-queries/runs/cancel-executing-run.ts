import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_EXECUTING_RUN = runWrite('cancelExecutingRun', ['DISPATCHED', 'ACCEPTED'], 'CANCELLED');

/**
 * Concurrency REPLACE: the older executing run is cancelled (its executor is then asked to
 * abort it).
 *
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, error = ?, deadline_at = NULL, updated_at = ?
 *    WHERE id = ? AND state IN ('DISPATCHED', 'ACCEPTED') AND attempt = ?
 *
 * Guarded on state and attempt: if its callback got in first, the run ended on its own and
 * stays as it ended. Its late ABORTED callback then finds it CANCELLED and gets 409.
 */
export async function cancelExecutingRun(
  manager: EntityManager,
  input: { runId: number; attempt: number; reason: string; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', finished_at = ?, error = ?, deadline_at = NULL, updated_at = ?
      WHERE id = ? AND ${stateIn(CANCEL_EXECUTING_RUN)} AND attempt = ?`,
    [input.now, input.reason, input.now, input.runId, input.attempt],
  );
  return affected > 0;
}
