import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * Drops up to `limit` of a tenant's finished webhook deliveries (delivered, or given up) older
 * than `before` — they follow the alarms' retention:
 *
 *   SELECT id FROM webhook_deliveries WHERE tenant_id = ? AND created_at < ? AND (delivered_at IS NOT NULL OR failed_at IS NOT NULL) LIMIT ?
 *   DELETE FROM webhook_deliveries WHERE id IN (…)
 *
 * Returns how many.
 */
export async function purgeWebhookDeliveries(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ id: unknown }>(
    manager,
    'SELECT id FROM webhook_deliveries WHERE tenant_id = ? AND created_at < ? AND (delivered_at IS NOT NULL OR failed_at IS NOT NULL) LIMIT ?',
    [input.tenantId, input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const { affected } = await execute(manager, `DELETE FROM webhook_deliveries WHERE id IN (${placeholders(rows.length)})`, rows.map((r) => num(r.id)));
  return affected;
}
