import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';

/** A tenant as the claimer divides capacity: its group, its share, and what its executors can take. */
export interface ClaimTenantRow {
  id: string;
  engineGroup: string;
  /** Its weight in the fair division of the engines' held runs (tenants.claim_share, default 1). */
  claimShare: number;
  /** Places its UP executors advertise: Σ (capacity + queue_limit), 0 with none up. */
  executorRoom: number;
}

/**
 * The tenants of these engine groups with their claim share and their UP executors' room — the
 * claimer's view of who shares the engines and how much each can use (ClaimerService):
 *
 *   SELECT t.id, t.engine_group, t.claim_share, COALESCE(SUM(e.capacity + e.queue_limit), 0) AS room
 *     FROM tenants t LEFT JOIN executors e ON e.tenant_id = t.id AND e.state = 'UP'
 *    WHERE t.engine_group IN (…)
 *    GROUP BY t.id, t.engine_group, t.claim_share
 *    ORDER BY t.id
 *
 * Read about once a second by each engine, not per claim: tenants and executors are small tables
 * (a row per customer, a row per executor process) that change at human or heartbeat pace.
 */
export async function findClaimTenants(manager: EntityManager, groups: readonly string[]): Promise<ClaimTenantRow[]> {
  if (groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT t.id, t.engine_group, t.claim_share, COALESCE(SUM(e.capacity + e.queue_limit), 0) AS room
       FROM tenants t LEFT JOIN executors e ON e.tenant_id = t.id AND e.state = 'UP'
      WHERE t.engine_group IN (${placeholders(groups.length)})
      GROUP BY t.id, t.engine_group, t.claim_share
      ORDER BY t.id`,
    [...groups],
  );
  return rows.map((r) => ({ id: String(r.id), engineGroup: String(r.engine_group), claimShare: num(r.claim_share), executorRoom: num(r.room) }));
}
