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

/**
 * How many of a run's latest ended attempts, up to `atMost`, were handed back in a row (the
 * streak the next hand-back would extend; an attempt that counted ends it):
 *
 *   SELECT state FROM run_attempts WHERE run_id = ? ORDER BY attempt DESC LIMIT ?   -- uq_run_attempts_run
 */
export async function countConsecutiveHandBacks(manager: EntityManager, runId: number, atMost: number): Promise<number> {
  const { rows } = await execute<{ state: string }>(manager, 'SELECT state FROM run_attempts WHERE run_id = ? ORDER BY attempt DESC LIMIT ?', [runId, atMost]);
  const counted = rows.findIndex((r) => r.state !== HANDED_BACK);
  return counted === -1 ? rows.length : counted;
}
