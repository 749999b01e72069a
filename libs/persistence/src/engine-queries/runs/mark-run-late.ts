import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const MARK_RUN_LATE = runWrite('markRunLate', ['PENDING', 'CLAIMED', 'RETRY_WAIT'], 'same');

/**
 * The START_LATE election:
 *
 *   UPDATE runs SET late_alarmed_at = ? WHERE id = ? AND late_alarmed_at IS NULL
 *      AND state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
 *
 * Every engine of the group runs the watchdog; the row lock serialises them and only the first
 * still finds `late_alarmed_at IS NULL`, so it alone writes the alarm row (same transaction).
 * The state test drops a run that was dispatched between the scan and this update.
 */
export async function markRunLate(manager: EntityManager, runId: number, now: number): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET late_alarmed_at = ? WHERE id = ? AND late_alarmed_at IS NULL AND ${stateIn(MARK_RUN_LATE)}`,
    [now, runId],
  );
  return affected > 0;
}
