import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * Deletes up to `limit` of the tenant's executors that have been DOWN since before `before`
 * (their last heartbeat):
 *
 *   SELECT id FROM executors WHERE state = 'DOWN' AND tenant_id = ? AND heartbeat_at < ? ORDER BY heartbeat_at LIMIT ?   -- ix_executors_state
 *   DELETE FROM executors WHERE id IN (…) AND state = 'DOWN' AND heartbeat_at < ?
 *
 * Guarded as an admin's removal is (deleteDownExecutor): one that heartbeats meanwhile (UP again,
 * or DOWN with a newer heartbeat) stays. Runs that went to it keep their executor id; their detail
 * shows the executor as gone. Returns the executors deleted.
 */
export async function purgeDownExecutors(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ id: unknown }>(manager, `SELECT id FROM executors WHERE state = 'DOWN' AND tenant_id = ? AND heartbeat_at < ? ORDER BY heartbeat_at LIMIT ?`, [input.tenantId, input.before, input.limit]);
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => num(r.id));
  const { affected } = await execute(manager, `DELETE FROM executors WHERE id IN (${placeholders(ids.length)}) AND state = 'DOWN' AND heartbeat_at < ?`, [...ids, input.before]);
  return affected;
}
