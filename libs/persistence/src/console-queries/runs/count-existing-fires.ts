import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/**
 * How many of a task's fire keys already have a run — what a slice of a backfill will not write
 * again (its alreadyRun), asked in the slice's transaction before its insert:
 *
 *   SELECT COUNT(*) AS n FROM runs WHERE task_id = ? AND fire_key IN (?, ?, …)
 *
 * Point lookups on the unique key uq_runs_task_fire_key (at most one slice, 500 keys), so the
 * cost does not grow with the task's history, which a count of all its BACKFILL runs before and
 * after the insert would read twice.
 */
export async function countExistingFires(manager: EntityManager, input: { taskId: number; fireKeys: readonly string[] }): Promise<number> {
  if (input.fireKeys.length === 0) return 0;
  const { rows } = await execute<{ n: number | string }>(
    manager,
    `SELECT COUNT(*) AS n FROM runs WHERE task_id = ? AND fire_key IN (${input.fireKeys.map(() => '?').join(', ')})`,
    [input.taskId, ...input.fireKeys],
  );
  return Number(rows[0].n);
}
