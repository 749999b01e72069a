import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute, placeholders } from '../sql';

/**
 * The runs callbacks are about, with their tasks' retry policy — each scoped by the tenant whose
 * secret signed its callback, so a callback of tenant A can never read or move tenant B's run:
 *
 *   SELECT … FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.id IN (…)
 *   -- a row is returned for a request only if its tenant_id is the request's tenant
 *
 * One statement for the callbacks that arrive together (the engine batches them): a primary-key
 * IN list, a point lookup per run. Read OUTSIDE the callback's write transaction, as a decision
 * aid only (which state to move to, retry or not): the write that follows is guarded on state
 * and attempt, so a stale read makes it match nothing rather than do harm. Keeping plain reads
 * out of the transaction's start also matters for fan-in (see lock-flow-root.ts).
 * Returns one entry per request, in order (null: no such run of that tenant).
 */
export async function findRunsForCallback(manager: EntityManager, requests: ReadonlyArray<{ runId: number; tenantId: string }>): Promise<Array<RunAttemptRow | null>> {
  if (requests.length === 0) return [];
  const ids = [...new Set(requests.map((r) => r.runId))];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}
       FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.id IN (${placeholders(ids.length)})`,
    ids,
  );
  const byId = new Map(rows.map((r) => toRunAttemptRow(r)).map((r) => [r.runId, r]));
  return requests.map(({ runId, tenantId }) => {
    const run = byId.get(runId);
    return run && run.tenantId === tenantId ? run : null;
  });
}
