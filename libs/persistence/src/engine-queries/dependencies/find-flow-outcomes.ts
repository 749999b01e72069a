import type { EntityManager } from 'typeorm';
import type { ParentOutcome } from '@baton/domain';
import { execute, num, placeholders } from '../sql';

/**
 * How the given tasks' runs in a flow ended (only those that did):
 *
 *   SELECT task_id, state FROM runs
 *    WHERE (flow_id = ? OR id = ?) AND task_id IN (…) AND state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED')
 *
 * ix_runs_flow and the primary key (the root, whose flow_id is null: flowOf): a flow is a handful of rows. A task has at most one run per flow (the root, or a
 * dependency run with fire key `f:<flow>`; a retry is the same row), so the map is unambiguous.
 * A plain read: call it after lockFlowRoot, at READ COMMITTED, so it sees every outcome
 * committed before this transaction got the flow's lock.
 */
export async function findFlowOutcomes(manager: EntityManager, flowId: number, taskIds: readonly number[]): Promise<Map<number, ParentOutcome>> {
  const out = new Map<number, ParentOutcome>();
  if (taskIds.length === 0) return out;
  const { rows } = await execute<{ task_id: number | string; state: ParentOutcome }>(
    manager,
    `SELECT task_id, state FROM runs
      WHERE (flow_id = ? OR id = ?) AND task_id IN (${placeholders(taskIds.length)}) AND state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED')`,
    [flowId, flowId, ...taskIds],
  );
  for (const r of rows) out.set(num(r.task_id), r.state);
  return out;
}
