import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../../engine-queries/sql';

/**
 * The first statement of a transaction that writes runs of one task outside a submission: each
 * slice of a backfill being written (the console's backfills.service), a re-run (run-actions.service):
 *
 *   SELECT backfill_cancels, engine_group FROM tasks WHERE id = ? AND tenant_id = ? LOCK IN SHARE MODE
 *
 * The share lock is held until the slice commits, so a cancel (markBackfillsCancelled, an
 * exclusive lock on the same row) comes either before the slice, which then sees the count
 * changed and writes nothing, or after it, and cancels the slice's runs: no run of a cancelled
 * backfill stays PENDING. So does a move of the tenant to another engine group (moveTenantGroup
 * writes its tasks first): the slice's runs go in the group read here, and a move after the slice
 * moves them; a slice written after a move goes in the new group, not in the one the task had when
 * the backfill began (its runs waited there for good: no engine claims a tenant's runs elsewhere).
 * A re-run goes in the group read here for the same reason (it read the group without the lock: one
 * made while a move committed waited in the old group for good).
 * Shared rather than FOR UPDATE so two backfills of one task do not wait
 * for each other; `LOCK IN SHARE MODE` rather than `FOR SHARE`, which MariaDB does not know.
 * The planner claims tasks with SKIP LOCKED and skips the task for a round at most.
 * SQLite: serialised transactions — nothing to lock.
 * Returns the count and the group, or null when the task is gone.
 */
export async function lockTaskForRuns(manager: EntityManager, input: { taskId: number; tenantId: string }): Promise<{ backfillCancels: number; engineGroup: string } | null> {
  const lock = dialectOf(manager) === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const { rows } = await execute<{ backfill_cancels: number | string; engine_group: string }>(
    manager,
    `SELECT backfill_cancels, engine_group FROM tasks WHERE id = ? AND tenant_id = ?${lock}`,
    [input.taskId, input.tenantId],
  );
  return rows.length === 0 ? null : { backfillCancels: Number(rows[0].backfill_cancels), engineGroup: String(rows[0].engine_group) };
}
