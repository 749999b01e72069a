import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * Deletes up to `limit` of the tenant's alarms raised before `before` that the outbox relay has
 * published (an unpublished one is still owed to the topic and the console):
 *
 *   SELECT id FROM alarms WHERE tenant_id = ? AND raised_at < ? AND published_at IS NOT NULL ORDER BY raised_at LIMIT ?
 *   DELETE FROM alarms WHERE id IN (…) AND published_at IS NOT NULL
 *
 * ix_alarms_tenant_time. Returns the alarms deleted.
 */
export async function purgeAlarms(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ id: unknown }>(
    manager,
    `SELECT id FROM alarms WHERE tenant_id = ? AND raised_at < ? AND published_at IS NOT NULL ORDER BY raised_at LIMIT ?`,
    [input.tenantId, input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => num(r.id));
  const { affected } = await execute(manager, `DELETE FROM alarms WHERE id IN (${placeholders(ids.length)}) AND published_at IS NOT NULL`, ids);
  return affected;
}
