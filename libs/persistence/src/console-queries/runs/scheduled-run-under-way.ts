import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { execute } from '../../engine-queries/sql';

/**
 * Whether a scheduled run of the task has not ended yet — for a FIXED_DELAY task, that its chain
 * is under way: the run's end places the next fire (engine follow-ups), so a save must not place
 * one too.
 *
 *   SELECT 1 FROM runs WHERE task_id = ? AND state IN (active) AND cause = 'SCHEDULE' AND tenant_id = ? LIMIT 1
 *
 * A (task_id, state, cause) range of ix_runs_task_filter: the task's live runs, not its history.
 */
export async function hasScheduledRunUnderWay(manager: EntityManager, input: { tenantId: string; taskId: number }): Promise<boolean> {
  const { rows } = await execute(
    manager,
    `SELECT 1 AS one FROM runs WHERE task_id = ? AND state IN (${ACTIVE_STATES.map((s) => `'${s}'`).join(', ')}) AND cause = 'SCHEDULE' AND tenant_id = ? LIMIT 1`,
    [input.taskId, input.tenantId],
  );
  return rows.length > 0;
}
