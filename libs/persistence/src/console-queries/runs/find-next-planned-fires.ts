import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { execute, num, placeholders } from '../../engine-queries/sql';

export function findNextPlannedFiresSql(tasks: number): string {
  return `SELECT task_id, MIN(scheduled_at) AS next_at FROM runs
           WHERE task_id IN (${placeholders(tasks)}) AND state IN (${ACTIVE_STATES.map((s) => `'${s}'`).join(', ')})
             AND cause = 'SCHEDULE' AND scheduled_at > ?
           GROUP BY task_id`;
}

/**
 * Each task's earliest planned fire whose instant has not come (after `now`) and that has not
 * ended — the fires engines prepare ahead (BATON_LOOK_AHEAD_MS, BATON_SEND_AHEAD_MS), which the
 * task's next_fire_at cursor has already passed:
 *
 *   SELECT task_id, MIN(scheduled_at) AS next_at FROM runs
 *    WHERE task_id IN (…) AND state IN (active) AND cause = 'SCHEDULE' AND scheduled_at > ? GROUP BY task_id
 *
 * One statement for a page of tasks, read from ix_runs_task_filter (task_id, state, cause,
 * scheduled_at) alone: a (task, state) range over the few fires planned ahead, never the task's
 * history, and no row read. No tenant_id: it is not in that index, and the task ids are the
 * caller's, read under its tenant (a run's task_id is its own tenant's task).
 */
export async function findNextPlannedFires(manager: EntityManager, input: { taskIds: readonly number[]; now: number }): Promise<Map<number, number>> {
  if (input.taskIds.length === 0) return new Map();
  const { rows } = await execute<{ task_id: unknown; next_at: unknown }>(manager, findNextPlannedFiresSql(input.taskIds.length), [...input.taskIds, input.now]);
  return new Map(rows.map((r) => [num(r.task_id), num(r.next_at)]));
}
