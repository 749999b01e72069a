import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/** How run_attempts names an attempt handed back: sent ahead, never started by its executor, not counted as an attempt (countHandedBackAttempts). */
export const HANDED_BACK = 'HANDED_BACK';

/**
 * How many of a run's attempts were handed back (run_attempts rows HANDED_BACK): they do not
 * count against the task's retries.
 *
 *   SELECT COUNT(*) FROM run_attempts WHERE run_id = ? AND state = 'HANDED_BACK'   -- uq_run_attempts_run
 */
export async function countHandedBackAttempts(manager: EntityManager, runId: number): Promise<number> {
  const { rows } = await execute<{ n: number | string }>(manager, `SELECT COUNT(*) AS n FROM run_attempts WHERE run_id = ? AND state = '${HANDED_BACK}'`, [runId]);
  return rows.length ? Number(rows[0].n) : 0;
}
