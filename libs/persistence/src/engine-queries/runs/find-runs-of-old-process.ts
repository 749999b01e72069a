import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute } from '../sql';

/**
 * The attempts an executor was given before its process (re)started and still counted as executing
 * there: candidates for lost with the old process (the caller keeps those the new one holds).
 *
 *   SELECT … FROM tenants tn
 *     JOIN runs r ON r.engine_group = tn.engine_group AND r.state IN ('DISPATCHED', 'ACCEPTED')
 *     JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE tn.id = ? AND r.executor_id = ? AND r.tenant_id = tn.id AND r.dispatched_at < ?
 *    LIMIT ?
 *
 * Read once per executor process an engine hears of: planned from the tenant's row, then a range of
 * ix_runs_deadline (engine_group, state, deadline_at, executor_id), the group's executing runs.
 */
export async function findRunsOfOldProcess(
  manager: EntityManager,
  input: { tenantId: string; executorId: number; dispatchedBefore: number; limit: number },
): Promise<RunAttemptRow[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}
       FROM tenants tn
       JOIN runs r ON r.engine_group = tn.engine_group AND r.state IN ('DISPATCHED', 'ACCEPTED')
       JOIN tasks t ON t.id = r.task_id
       LEFT JOIN executors e ON e.id = r.executor_id
      WHERE tn.id = ? AND r.executor_id = ? AND r.tenant_id = tn.id AND r.dispatched_at < ?
      LIMIT ?`,
    [input.tenantId, input.executorId, input.dispatchedBefore, input.limit],
  );
  return rows.map(toRunAttemptRow);
}
