import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from './sql';

export interface TenantSecretsRow {
  id: string;
  engineGroup: string;
  executorSecret: string;
  ratePerSec: number;
  burst: number;
}

/**
 * What the engine needs of tenants — signing key and dispatch quota:
 *
 *   SELECT id, engine_group, executor_secret, rate_per_sec, burst FROM tenants WHERE id IN (…)
 *
 * Primary-key lookups; the engine caches the result for a few seconds (TenantDirectory).
 */
export async function findTenants(manager: EntityManager, ids: readonly string[]): Promise<TenantSecretsRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, engine_group, executor_secret, rate_per_sec, burst FROM tenants WHERE id IN (${placeholders(unique.length)})`,
    unique,
  );
  return rows.map((r) => ({
    id: String(r.id),
    engineGroup: String(r.engine_group),
    executorSecret: String(r.executor_secret),
    ratePerSec: num(r.rate_per_sec),
    burst: num(r.burst),
  }));
}
