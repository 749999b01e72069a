import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/**
 * The first statement of a backfill's cancel (DELETE /api/tasks/{id}/backfill), before its runs
 * are cancelled (cancelBackfillRuns) in the same transaction:
 *
 *   UPDATE tasks SET backfill_cancels = backfill_cancels + 1 WHERE id = ? AND tenant_id = ?
 *
 * A backfill still being written stops at its next slice when it sees the count change; the
 * row lock waits for a slice being written to commit (lockTaskForRuns), so the runs cancelled
 * next include it. A count rather than a time: two requests in the same millisecond cannot be
 * told apart by time. Returns false when the task does not exist (for this tenant).
 */
export async function markBackfillsCancelled(manager: EntityManager, input: { taskId: number; tenantId: string }): Promise<boolean> {
  const { affected } = await execute(manager, 'UPDATE tasks SET backfill_cancels = backfill_cancels + 1 WHERE id = ? AND tenant_id = ?', [input.taskId, input.tenantId]);
  return affected > 0;
}
