import type { EntityManager } from 'typeorm';
import { execute, num } from '../sql';

/**
 * The least start deadline of all tasks, null when there are none — the watchdog's bound on which
 * runs can be late at all (findLateRuns' `firedBefore`):
 *
 *   SELECT MIN(start_deadline_ms) AS least FROM tasks        -- ix_tasks_start_deadline: one dive
 *
 * All tasks, not only those of the engine's groups: a run keeps the group it was made in when its
 * task moves to another, and its task's deadline is what counts. A tenant whose task has a short
 * deadline widens every engine's scan back to what it was without the bound, never past it.
 */
export async function readLeastStartDeadline(manager: EntityManager): Promise<number | null> {
  const { rows } = await execute<{ least: unknown }>(manager, 'SELECT MIN(start_deadline_ms) AS least FROM tasks', []);
  return rows[0]?.least === null || rows[0]?.least === undefined ? null : num(rows[0].least);
}
