import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../../engine-queries/sql';

/**
 * The first statement of each slice of a backfill being written (the console's backfills.service):
 *
 *   SELECT backfill_cancels FROM tasks WHERE id = ? AND tenant_id = ? LOCK IN SHARE MODE
 *
 * The share lock is held until the slice commits, so a cancel (markBackfillsCancelled, an
 * exclusive lock on the same row) comes either before the slice, which then sees the count
 * changed and writes nothing, or after it, and cancels the slice's runs: no run of a cancelled
 * backfill stays PENDING. Shared rather than FOR UPDATE so two backfills of one task do not wait
 * for each other; `LOCK IN SHARE MODE` rather than `FOR SHARE`, which MariaDB does not know.
 * The planner claims tasks with SKIP LOCKED and skips the task for a round at most.
 * SQLite: serialised transactions — nothing to lock.
 * Returns the count, or null when the task is gone.
 */
export async function lockTaskForBackfill(manager: EntityManager, input: { taskId: number; tenantId: string }): Promise<number | null> {
  const lock = dialectOf(manager) === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const { rows } = await execute<{ backfill_cancels: number | string }>(manager, `SELECT backfill_cancels FROM tasks WHERE id = ? AND tenant_id = ?${lock}`, [input.taskId, input.tenantId]);
  return rows.length === 0 ? null : Number(rows[0].backfill_cancels);
}
