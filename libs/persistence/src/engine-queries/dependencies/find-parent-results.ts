import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';

/**
 * The results of these parent tasks' runs in one flow, for the child runs about to fire (their
 * `ctx.parentResults`), in the transaction that fires them:
 *
 *   SELECT r.task_id, t.name, r.result FROM runs r JOIN tasks t ON t.id = r.task_id
 *    WHERE (r.flow_id = ? OR r.id = ?) AND r.task_id IN (…) AND r.state = 'SUCCEEDED'
 *
 * ix_runs_flow and the primary key (the root: findFlowOutcomes): the flow's few runs. Only successes carry a result; a parent that failed and
 * let the child fire (ON_FAILURE, ON_COMPLETION) is absent.
 */
export async function findParentResults(manager: EntityManager, flowId: number, parentTaskIds: readonly number[]): Promise<Map<number, { taskName: string; resultJson: string | null }>> {
  if (parentTaskIds.length === 0) return new Map();
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.task_id, t.name, r.result FROM runs r JOIN tasks t ON t.id = r.task_id
      WHERE (r.flow_id = ? OR r.id = ?) AND r.task_id IN (${placeholders(parentTaskIds.length)}) AND r.state = 'SUCCEEDED'`,
    [flowId, flowId, ...parentTaskIds],
  );
  return new Map(rows.map((r) => [num(r.task_id), { taskName: String(r.name), resultJson: r.result === null || r.result === undefined ? null : String(r.result) }]));
}
