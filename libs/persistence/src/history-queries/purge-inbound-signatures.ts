import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../engine-queries/sql';

/**
 * Deletes up to `limit` of the tenant's remembered inbound webhook signatures received before `before`:
 *
 *   SELECT signature FROM inbound_webhook_signatures WHERE tenant_id = ? AND received_at < ? ORDER BY received_at LIMIT ?
 *   DELETE FROM inbound_webhook_signatures WHERE tenant_id = ? AND signature IN (…)      -- primary key
 *
 * ix_inbound_webhook_signatures_tenant_time. Kept as long as the tenant's events (runsMs): a
 * delivery sent again after that is taken as new. Returns the rows deleted.
 */
export async function purgeInboundSignatures(manager: EntityManager, input: { tenantId: string; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<{ signature: string }>(
    manager,
    'SELECT signature FROM inbound_webhook_signatures WHERE tenant_id = ? AND received_at < ? ORDER BY received_at LIMIT ?',
    [input.tenantId, input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const { affected } = await execute(manager, `DELETE FROM inbound_webhook_signatures WHERE tenant_id = ? AND signature IN (${placeholders(rows.length)})`, [input.tenantId, ...rows.map((r) => r.signature)]);
  return affected;
}
