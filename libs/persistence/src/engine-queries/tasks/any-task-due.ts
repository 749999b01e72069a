import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../sql';

/**
 * Whether any task of the groups is due within the horizon — the planner's look before it opens
 * its transaction:
 *
 *   SELECT 1 FROM tasks
 *    WHERE engine_group IN (…) AND paused = 0 AND next_fire_at <= ? AND trigger_kind <> 'MANUAL'
 *    LIMIT 1                                                   -- ix_tasks_plan, a range per group
 *
 * A plain read, no lock, no ORDER BY (so no filesort: the first row of any range ends it). An
 * idle planner's turn is then this one statement instead of SET TRANSACTION, START, the locking
 * claim and COMMIT (an idle two-engine cluster: 12 of its 100 statements a second). A task a peer
 * holds locked is seen here and skipped by the claim that follows, as before.
 */
/** The look for `groups` groups — exported so the plan test EXPLAINs this very text. */
export function anyTaskDueSql(groups: number): string {
  return `SELECT 1 AS due FROM tasks
           WHERE engine_group IN (${placeholders(groups)}) AND paused = 0 AND next_fire_at <= ? AND trigger_kind <> 'MANUAL'
           LIMIT 1`;
}

export async function anyTaskDue(manager: EntityManager, input: { groups: readonly string[]; horizon: number }): Promise<boolean> {
  if (input.groups.length === 0) return false;
  const { rows } = await execute(manager, anyTaskDueSql(input.groups.length), [...input.groups, input.horizon]);
  return rows.length > 0;
}
