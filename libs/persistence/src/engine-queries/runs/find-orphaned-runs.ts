import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute, placeholders } from '../sql';

/**
 * Watchdog reconciliation: runs of my groups still executing on an executor that went DOWN
 * more than the grace ago (silent since before `heartbeatBefore` = now − dead-after − grace).
 *
 *   SELECT … FROM executors e
 *     JOIN runs r ON r.executor_id = e.id AND r.state IN ('DISPATCHED', 'ACCEPTED')
 *     JOIN tasks t ON t.id = r.task_id
 *    WHERE e.state = 'DOWN' AND e.heartbeat_at < ? AND r.engine_group IN (…)
 *    LIMIT ?
 *
 * Planned from the executing runs of my groups, ranges of ix_runs_deadline (engine_group, state,
 * deadline_at, executor_id), each joined to its executor by primary key (MariaDB 10.11 chose this
 * order over a per-executor index too, which is why ix_runs_executor went: migrations/1797100000000):
 * a tick reads the entries of the runs executing in my groups (the in-flight runs, not the
 * history), and an executor down for months costs nothing once its runs have ended. The grace lets an executor
 * that was only partitioned come back and call back: its callback wins by the guarded update,
 * and a reconciliation that comes later matches nothing.
 */
export async function findOrphanedRuns(
  manager: EntityManager,
  input: { groups: readonly string[]; heartbeatBefore: number; limit: number },
): Promise<RunAttemptRow[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}
       FROM executors e
       JOIN runs r ON r.executor_id = e.id AND r.state IN ('DISPATCHED', 'ACCEPTED')
       JOIN tasks t ON t.id = r.task_id
      WHERE e.state = 'DOWN' AND e.heartbeat_at < ? AND r.engine_group IN (${placeholders(input.groups.length)})
      LIMIT ?`,
    [input.heartbeatBefore, ...input.groups, input.limit],
  );
  return rows.map(toRunAttemptRow);
}
