import type { EntityManager } from 'typeorm';
import { dialectOf, num, placeholders } from '../../engine-queries/sql';
import { sendAhead } from '../../nest/riders';

/**
 * The first statement of a submission batch's transaction (apps/console/src/submissions): which
 * of the tasks it names are still there, at which version, each kept so until the batch commits:
 *
 *   SELECT id, version FROM tasks WHERE tenant_id = ? AND id IN (…) LOCK IN SHARE MODE    -- primary key
 *
 * The batch read its tasks before the transaction (findSubmittableTasks, or a copy kept from an
 * earlier read), so as not to hold a transaction open while params are checked: a task whose
 * version differs from the copy's was changed since, and the batch is judged again on a fresh
 * read. A task deleted in between would leave a PENDING run
 * of no task; with the share lock, a deletion (TaskRemovalService, which locks the task FOR
 * UPDATE first) comes either before the batch, which then sees the task gone, or after it, and
 * cancels the batch's runs with the task's others. Shared, so concurrent batches of one task do
 * not wait for each other. SQLite: serialised transactions — nothing to lock.
 *
 * Sent ahead (nest/riders.ts): it rides, with the transaction's opening, in the packet of the
 * batch's next statement (its runs INSERT), and is run first, so the lock is held before any run
 * is written, as if sent alone. The caller judges the versions once that packet is answered, and
 * rolls the transaction back when one changed.
 */
export async function lockSubmittedTasks(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const lock = dialectOf(manager) === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const rows = await sendAhead(manager, `SELECT id, version FROM tasks WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})${lock}`, [tenantId, ...ids]);
  return new Map(rows.map((r) => [num(r.id), num(r.version)]));
}
