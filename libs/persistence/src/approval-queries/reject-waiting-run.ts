import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const REJECT_WAITING_RUN = runWrite('rejectWaitingRun', ['APPROVAL_WAIT'], 'FAILED');

/**
 * A run waiting for approval is rejected (by a person, or by its deadline): APPROVAL_WAIT → FAILED,
 * for good — nothing ran, so there is nothing to retry; its end is the engine's (finished_clock):
 *
 *   UPDATE runs SET state = 'FAILED', error = ?, finished_at = ?, finished_clock = 'engine', updated_at = ?
 *    WHERE id = ? AND state IN ('APPROVAL_WAIT')
 *
 * By primary key; false when the run no longer waits (cancelled meanwhile), and nothing is written.
 */
export async function rejectWaitingRun(manager: EntityManager, input: { runId: number; error: string; now: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'FAILED', error = ?, finished_at = ?, finished_clock = 'engine', updated_at = ?
      WHERE id = ? AND ${stateIn(REJECT_WAITING_RUN)}`,
    [input.error, input.now, input.now, input.runId],
  );
  return affected > 0;
}
