import type { EntityManager } from 'typeorm';
import { HANDED_BACK } from '@baton/domain';
import { execute } from '../sql';

/**
 * How many of a run's attempts were handed back (run_attempts rows HANDED_BACK: sent ahead, never
 * started by their executor): they do not count against the task's retries.
 *
 *   SELECT COUNT(*) FROM run_attempts WHERE run_id = ? AND state = 'HANDED_BACK'   -- uq_run_attempts_run
 */
export async function countHandedBackAttempts(manager: EntityManager, runId: number): Promise<number> {
  const { rows } = await execute<{ n: number | string }>(manager, `SELECT COUNT(*) AS n FROM run_attempts WHERE run_id = ? AND state = '${HANDED_BACK}'`, [runId]);
  return rows.length ? Number(rows[0].n) : 0;
}
