import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../engine-queries/sql';

/**
 * The tenants served by these engine groups (the history job's work list):
 *
 *   SELECT id FROM tenants WHERE engine_group IN (…) ORDER BY id
 */
export async function findGroupTenants(manager: EntityManager, groups: readonly string[]): Promise<string[]> {
  if (groups.length === 0) return [];
  const { rows } = await execute<{ id: unknown }>(manager, `SELECT id FROM tenants WHERE engine_group IN (${placeholders(groups.length)}) ORDER BY id`, [...groups]);
  return rows.map((r) => String(r.id));
}
