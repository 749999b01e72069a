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
 *   SELECT id, engine_group, claim_share FROM tenants WHERE engine_group IN (…) ORDER BY id
 *   SELECT tenant_id, SUM(capacity + queue_limit) AS room FROM executors WHERE state = 'UP' GROUP BY tenant_id
 *
 * Read about once a second by each engine, not per claim: tenants and executors are small tables
 * (a row per customer, a row per executor process) that change at human or heartbeat pace. Two
 * reads joined here, not a LEFT JOIN … GROUP BY in the database: with 10,000 tenants that one
 * statement took MariaDB ~48 ms a read (a lookup of every tenant's executors and a temporary
 * table to group them: performance_schema, 2026-12-06), ~0.1 of a core for two engines. The
 * executors' read is a range of ix_executors_state (state, tenant_id, …), in tenant order.
 */
export async function findClaimTenants(manager: EntityManager, groups: readonly string[]): Promise<ClaimTenantRow[]> {
  if (groups.length === 0) return [];
  const { rows: tenants } = await execute<{ id: unknown; engine_group: unknown; claim_share: unknown }>(
    manager,
    `SELECT id, engine_group, claim_share FROM tenants WHERE engine_group IN (${placeholders(groups.length)}) ORDER BY id`,
    [...groups],
  );
  const { rows: rooms } = await execute<{ tenant_id: unknown; room: unknown }>(
    manager,
    `SELECT tenant_id, SUM(capacity + queue_limit) AS room FROM executors WHERE state = 'UP' GROUP BY tenant_id`,
  );
  const roomOf = new Map(rooms.map((r) => [String(r.tenant_id), num(r.room)]));
  return tenants.map((t) => ({ id: String(t.id), engineGroup: String(t.engine_group), claimShare: num(t.claim_share), executorRoom: roomOf.get(String(t.id)) ?? 0 }));
}
