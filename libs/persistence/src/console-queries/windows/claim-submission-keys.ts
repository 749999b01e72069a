import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num } from '../../engine-queries/sql';

/** A submission's idempotency key on a task: its fire key (`k:<key>` or `e:<key>`). */
export interface SubmissionKeyRef {
  taskId: number;
  fireKey: string;
}

/** What a key had: CLAIMED — nothing, it is this transaction's now; or the run its first submission got (null: dropped). */
export type SubmissionKeyClaim = { kind: 'CLAIMED' } | { kind: 'SEEN'; runId: number | null };

/**
 * Takes the idempotency keys of submissions to debounced or throttled tasks for this transaction,
 * or learns what their first submission got:
 *
 *   INSERT INTO submission_keys (task_id, fire_key, tenant_id, run_id, created_at)
 *     VALUES (?, ?, ?, 0, ?), … ON DUPLICATE KEY UPDATE run_id = run_id            -- SQLite: INSERT OR IGNORE
 *   SELECT task_id, fire_key, run_id FROM submission_keys
 *    WHERE (task_id = ? AND fire_key = ?) OR … FOR UPDATE                       -- primary key
 *
 * Why so: the INSERT takes each key that is free (run_id 0 until recordSubmissionKey names the
 * run before commit); a key another console is writing makes it wait for that commit, and then
 * it leaves the row as it is. The SELECT is a locking read so that it sees that commit (a plain
 * read would see this transaction's snapshot, taken before it): a row still 0 is this
 * transaction's own. ON DUPLICATE KEY UPDATE rather than INSERT IGNORE: it takes the row's
 * exclusive lock at once, where INSERT IGNORE took a shared one and the consoles that all held it
 * then deadlocked asking FOR UPDATE (8 at once in window-keys.spec, every time).
 * Only submissions with a key to a windowed task come here: one INSERT and one SELECT per batch.
 * `refs` must be distinct. Answers in the order of `refs`.
 */
export async function claimSubmissionKeys(manager: EntityManager, tenantId: string, refs: readonly SubmissionKeyRef[], now: number): Promise<SubmissionKeyClaim[]> {
  if (refs.length === 0) return [];
  const mysql = dialectOf(manager) === 'mysql';
  // In one order (task, key), so two consoles' batches sharing keys never lock them crosswise.
  const sorted = [...refs].sort((a, b) => a.taskId - b.taskId || (a.fireKey < b.fireKey ? -1 : a.fireKey > b.fireKey ? 1 : 0));
  await execute(
    manager,
    `${mysql ? 'INSERT' : 'INSERT OR IGNORE'} INTO submission_keys (task_id, fire_key, tenant_id, run_id, created_at) VALUES ${sorted.map(() => '(?, ?, ?, 0, ?)').join(', ')}${mysql ? ' ON DUPLICATE KEY UPDATE run_id = run_id' : ''}`,
    sorted.flatMap((r) => [r.taskId, r.fireKey, tenantId, now]),
  );
  const { rows } = await execute<{ task_id: unknown; fire_key: string; run_id: unknown }>(
    manager,
    `SELECT task_id, fire_key, run_id FROM submission_keys WHERE ${refs.map(() => '(task_id = ? AND fire_key = ?)').join(' OR ')} ${mysql ? 'FOR UPDATE' : ''}`,
    refs.flatMap((r) => [r.taskId, r.fireKey]),
  );
  const found = new Map(rows.map((r) => [`${num(r.task_id)}\u0000${r.fire_key}`, r.run_id === null ? null : num(r.run_id)]));
  return refs.map((r) => {
    const runId = found.get(`${r.taskId}\u0000${r.fireKey}`);
    if (runId === undefined) throw new Error(`submission key ${r.fireKey} of task ${r.taskId} not found after its INSERT`);
    return runId === 0 ? { kind: 'CLAIMED' } : { kind: 'SEEN', runId };
  });
}
