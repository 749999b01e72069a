import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute } from './sql';

/**
 * The run a callback is about, with its task's retry policy — scoped by tenant, so a callback
 * signed with tenant A's secret can never read or move tenant B's run:
 *
 *   SELECT … FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.id = ? AND r.tenant_id = ?
 *
 * Read OUTSIDE the callback's write transaction, as a decision aid only (which state to move
 * to, retry or not): the write that follows is guarded on state and attempt, so a stale read
 * makes it match nothing rather than do harm. Keeping plain reads out of the transaction's
 * start also matters for fan-in (see lock-flow-root.ts).
 */
export async function findRunForCallback(manager: EntityManager, runId: number, tenantId: string): Promise<RunAttemptRow | null> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}
       FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.id = ? AND r.tenant_id = ?`,
    [runId, tenantId],
  );
  return rows.length ? toRunAttemptRow(rows[0]) : null;
}
