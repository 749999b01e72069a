import type { EntityManager } from 'typeorm';
import { dialectOf, num, placeholders } from '../../engine-queries/sql';
import { sendAhead } from '../../engine-queries/riders';
import { claimedRunTaskColumns } from '../../engine-queries/runs/find-claimed-run-tasks';
import type { NamedRunColumns } from '../../engine-queries/runs/read-named-runs';

/** A task of a submission batch as its share lock read it. */
export interface LockedTask {
  version: number;
  /** Its fields a dispatch needs, as `t_` columns (claimedRunTaskColumns): the batch's wake-up carries them with its runs. */
  dispatch: NamedRunColumns;
}

/**
 * The first statement of a submission batch's transaction (apps/console/src/submissions): which
 * of the tasks it names are still there, at which version, each kept so until the batch commits:
 *
 *   SELECT id, version, id AS t_id, name AS t_name, … FROM tasks WHERE tenant_id = ? AND id IN (…) LOCK IN SHARE MODE
 *                                                                                        -- primary key
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
 * Sent ahead (engine-queries/riders.ts): it rides, with the transaction's opening, in the packet of the
 * batch's next statement (its runs INSERT), and is run first, so the lock is held before any run
 * is written, as if sent alone. The caller judges the versions once that packet is answered, and
 * rolls the transaction back when one changed.
 *
 * It also reads what a dispatch needs of each task (the columns an engine's read of named runs
 * joins: claimedRunTaskColumns), current until the commit, which the wake-up carries to the engine
 * with the runs (namedRunColumns) so that it does not read them back: ~4 ms of a run's start at
 * 500 submissions a second (docs/BENCHMARKS.md, on demand). The `has_children` subquery is a plain
 * read of the transaction's snapshot: a locking read's lock does not reach into its subqueries.
 */
export async function lockSubmittedTasks(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, LockedTask>> {
  if (ids.length === 0) return new Map();
  const lock = dialectOf(manager) === 'mysql' ? ' LOCK IN SHARE MODE' : '';
  const rows = await sendAhead(manager, `SELECT id, version, ${claimedRunTaskColumns('tasks', 't_')} FROM tasks WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})${lock}`, [tenantId, ...ids]);
  return new Map(rows.map((r) => [num(r.id), { version: num(r.version), dispatch: dispatchColumns(r) }]));
}

/** The `t_` columns of a row. */
function dispatchColumns(row: Record<string, unknown>): NamedRunColumns {
  const out: NamedRunColumns = {};
  for (const [name, value] of Object.entries(row)) if (name.startsWith('t_')) out[name] = value as string | number | null;
  return out;
}
