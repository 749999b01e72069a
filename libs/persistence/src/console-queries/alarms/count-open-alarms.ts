import type { EntityManager } from 'typeorm';
import { execute, num } from '../../engine-queries/sql';

/**
 * A tenant's alarms not acknowledged yet, counted up to `cap` (a dashboard figure: "1,000+"
 * costs what 1,001 does, however many a tenant let pile up).
 *
 *   SELECT COUNT(*) FROM (SELECT 1 FROM alarms WHERE tenant_id = ? AND acked_at IS NULL LIMIT ?) a
 */
export async function countOpenAlarms(manager: EntityManager, input: { tenantId: string; cap: number }): Promise<{ count: number; capped: boolean }> {
  const { rows } = await execute<{ n: number | string }>(manager, 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM alarms WHERE tenant_id = ? AND acked_at IS NULL LIMIT ?) a', [
    input.tenantId,
    input.cap + 1,
  ]);
  const n = num(rows[0].n);
  return { count: Math.min(n, input.cap), capped: n > input.cap };
}
