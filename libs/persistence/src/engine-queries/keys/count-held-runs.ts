import type { EntityManager } from 'typeorm';
import { execute, num } from '../sql';

/**
 * Runs held by their concurrency key, per tenant (the baton_engine_tenant_key_held_runs gauge),
 * counted up to `cap` in all:
 *
 *   SELECT tenant_id, COUNT(*) AS n FROM (SELECT tenant_id FROM runs WHERE state = 'HELD' LIMIT ?) h GROUP BY tenant_id
 *
 * The HELD range of ix_runs_key, index only (tenant_id is its second column), cut at `cap`: a
 * sample reads at most that many entries however many runs wait.
 */
export async function countHeldRuns(manager: EntityManager, cap: number): Promise<Map<string, number>> {
  const { rows } = await execute<Record<string, unknown>>(manager, `SELECT tenant_id, COUNT(*) AS n FROM (SELECT tenant_id FROM runs WHERE state = 'HELD' LIMIT ?) h GROUP BY tenant_id`, [cap]);
  return new Map(rows.map((r) => [String(r.tenant_id), num(r.n)]));
}
