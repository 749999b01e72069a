import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute, num, placeholders } from '../sql';

/** An overdue run, with its task's timeout (what its TIMED_OUT error names). */
export interface OverdueRunRow extends RunAttemptRow {
  timeoutMs: number;
}

/**
 * Watchdog TIMEOUT: executing runs of my groups past their deadline.
 *
 *   SELECT … FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.engine_group IN (…) AND r.state IN ('DISPATCHED', 'ACCEPTED') AND r.deadline_at < ?
 *    LIMIT ?
 *
 * deadline_at (dispatched_at, then accepted_at, + the task's timeout) is written with the state
 * change, so this is a range on ix_runs_deadline (engine_group, state, deadline_at) that reads
 * only overdue rows, however many runs are executing.
 */
export async function findOverdueRuns(manager: EntityManager, input: { groups: readonly string[]; now: number; limit: number }): Promise<OverdueRunRow[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}, t.timeout_ms
       FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.engine_group IN (${placeholders(input.groups.length)}) AND r.state IN ('DISPATCHED', 'ACCEPTED') AND r.deadline_at < ?
      LIMIT ?`,
    [...input.groups, input.now, input.limit],
  );
  return rows.map((r) => ({ ...toRunAttemptRow(r), timeoutMs: num(r.timeout_ms) }));
}
