import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * Deletes up to `limit` of the tenant's events received before `before`:
 *
 *   SELECT id FROM events WHERE tenant_id = ? AND received_at < ? ORDER BY received_at LIMIT ?
 *   DELETE FROM events WHERE id IN (…)
 *
 * ix_events_tenant_time. The runs an event started are not touched: they go with their own
 * retention. Returns the events deleted.
 */
export async function purgeEvents(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ id: unknown }>(manager, `SELECT id FROM events WHERE tenant_id = ? AND received_at < ? ORDER BY received_at LIMIT ?`, [input.tenantId, input.before, input.limit]);
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => num(r.id));
  const { affected } = await execute(manager, `DELETE FROM events WHERE id IN (${placeholders(ids.length)})`, ids);
  return affected;
}
