import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from '../../engine-queries/sql';

/**
 * The first statement of a submission batch's transaction (apps/console/src/submissions): which
 * of the tasks it names are still there, each kept there until the batch commits:
 *
 *   SELECT id FROM tasks WHERE tenant_id = ? AND id IN (…) LOCK IN SHARE MODE    -- primary key
 *
 * The batch read its tasks before the transaction (findSubmittableTasks), so as not to hold a
 * transaction open while params are checked. A task deleted in between would leave a PENDING run
 * of no task; with the share lock, a deletion (TaskRemovalService, which locks the task FOR
 * UPDATE first) comes either before the batch, which then sees the task gone, or after it, and
 * cancels the batch's runs with the task's others. Shared, so concurrent batches of one task do
 * not wait for each other. SQLite: serialised transactions — nothing to lock.
 */
export async function lockSubmittedTasks(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const lock = dialectOf(manager) === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const { rows } = await execute<{ id: unknown }>(manager, `SELECT id FROM tasks WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})${lock}`, [tenantId, ...ids]);
  return new Set(rows.map((r) => num(r.id)));
}
