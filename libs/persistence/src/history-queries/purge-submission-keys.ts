import type { EntityManager } from 'typeorm';
import { execute, num } from '../engine-queries/sql';

/**
 * Deletes up to `limit` of the tenant's submission keys written before `before`:
 *
 *   SELECT task_id, fire_key FROM submission_keys WHERE tenant_id = ? AND created_at < ? ORDER BY created_at LIMIT ?
 *   DELETE FROM submission_keys WHERE (task_id = ? AND fire_key = ?) OR …       -- primary key
 *
 * ix_submission_keys_tenant_time. Kept as long as the tenant's ended runs (runsMs), as an
 * ordinary run's idempotency key lives as long as its run: the key is free again once gone.
 * Returns the keys deleted.
 */
export async function purgeSubmissionKeys(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ task_id: unknown; fire_key: string }>(
    manager,
    'SELECT task_id, fire_key FROM submission_keys WHERE tenant_id = ? AND created_at < ? ORDER BY created_at LIMIT ?',
    [input.tenantId, input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const { affected } = await execute(manager, `DELETE FROM submission_keys WHERE ${rows.map(() => '(task_id = ? AND fire_key = ?)').join(' OR ')}`, rows.flatMap((r) => [num(r.task_id), r.fire_key]));
  return affected;
}
