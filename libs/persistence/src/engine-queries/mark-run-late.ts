import type { EntityManager } from 'typeorm';
import { execute } from './sql';

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
    `UPDATE runs SET late_alarmed_at = ? WHERE id = ? AND late_alarmed_at IS NULL AND state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')`,
    [now, runId],
  );
  return affected > 0;
}
