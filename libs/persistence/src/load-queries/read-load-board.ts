import type { EntityManager } from 'typeorm';
import { byOldestDue, type ExecutorCapacity, type TenantLoad } from '@baton/domain';
import { countTenantRuns } from './count-tenant-runs';
import type { LoadTenantRow } from './find-load-tenants';
import { findOldestDue } from './find-oldest-due';
import { sumExecutorCapacity } from './sum-executor-capacity';

export interface LoadBoard {
  /** Due time of the oldest due run of each tenant given that has one. */
  oldestDue: Map<string, number>;
  /** The UP executors of each tenant given that has some. */
  capacity: Map<string, ExecutorCapacity>;
  /** The first `limit` of the tenants given, oldest due run first (byOldestDue), with their counts. */
  top: TenantLoad[];
}

/**
 * The load of some tenants, as the console's load pages and the engine's per-tenant metrics read
 * it: the oldest due run of every tenant (one index dive per tenant and waiting state, findOldestDue) ranks them, and
 * only the first `limit` are counted (countTenantRuns, at most 3 × (cap + 1) index entries each).
 * So a call costs O(tenants) index dives plus O(limit × cap) index entries, whatever the backlog.
 */
export async function readLoadBoard(manager: EntityManager, input: { tenants: readonly LoadTenantRow[]; now: number; limit: number; cap: number }): Promise<LoadBoard> {
  const { tenants, now, limit, cap } = input;
  const only = tenants.length === 1 ? { tenantId: tenants[0].id } : {};
  const oldestOfAll = await findOldestDue(manager, { now, tenants });
  const capacityOfAll = await sumExecutorCapacity(manager, only);
  const oldestDue = new Map<string, number>();
  const capacity = new Map<string, ExecutorCapacity>();
  for (const t of tenants) {
    const at = oldestOfAll.get(t.id);
    if (at !== undefined) oldestDue.set(t.id, at);
    const executors = capacityOfAll.get(t.id);
    if (executors !== undefined) capacity.set(t.id, executors);
  }
  const ranked = tenants.map((row) => ({ row, tenantId: row.id, oldestDueAt: oldestDue.get(row.id) ?? null })).sort(byOldestDue).slice(0, limit);
  const top: TenantLoad[] = [];
  for (const { row, oldestDueAt } of ranked) {
    const counts = await countTenantRuns(manager, { tenantId: row.id, engineGroup: row.engineGroup, now, cap });
    top.push({
      tenantId: row.id,
      engineGroup: row.engineGroup,
      ...counts,
      executors: capacity.get(row.id) ?? { up: 0, capacity: 0, inFlight: 0 },
      oldestDueAt,
      oldestDueAgeMs: oldestDueAt === null ? null : Math.max(0, now - oldestDueAt),
      backlogLateSince: row.backlogLateSince,
    });
  }
  return { oldestDue, capacity, top };
}
