import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../sql';

/**
 * `SELECT id FROM tasks WHERE id = ? FOR UPDATE` — the mutex of a FORBID/REPLACE task.
 *
 * "Is another run of this task executing? If not, mine becomes DISPATCHED" is a check then an
 * act; two engines dispatching two runs of the same task at the same instant would both see
 * "none" and both run. Locking the task row first serialises the decision per task across the
 * cluster (the lock is held only for the check and the CLAIMED → DISPATCHED update, never
 * across the HTTP call). ALLOW tasks never take it. The planner claims tasks with SKIP LOCKED,
 * so it skips such a task for at most one round instead of waiting.
 * SQLite: one engine and serialised transactions — nothing to lock.
 */
export async function lockTaskForConcurrency(manager: EntityManager, taskId: number): Promise<void> {
  if (dialectOf(manager) !== 'mysql') return;
  await execute(manager, 'SELECT id FROM tasks WHERE id = ? FOR UPDATE', [taskId]);
}
