import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';

export interface TenantSecretsRow {
  id: string;
  engineGroup: string;
  executorSecret: string;
  /** Version of `executorSecret` (bumped by each rotation). */
  executorSecretVersion: number;
  /** The secret before the last rotation (version − 1), or null. */
  previousExecutorSecret: string | null;
  /** When the previous secret stops being accepted (epoch ms), or null. */
  previousSecretExpiresAt: number | null;
  ratePerSec: number;
  burst: number;
  /** Its weight among tenants (1–100): in claim budgets and in the turns of a dispatch line (ReadyLine). */
  claimShare: number;
  /** Where the tenant's executors may live (null: anywhere but link-local and metadata addresses). */
  executorNetworks: string[] | null;
  /** The access token of its XXL-JOB executors (both ways); null: it serves none. */
  xxlJobAccessToken: string | null;
}

/**
 * What the engine needs of tenants — signing keys and XXL-JOB access token (current and, during a rotation's overlap
 * window, previous), dispatch quota, weight, and where their executors may live:
 *
 *   SELECT id, engine_group, executor_secret, executor_secret_version, previous_executor_secret,
 *          previous_secret_expires_at, rate_per_sec, burst, claim_share, executor_networks, xxl_job_access_token FROM tenants WHERE id IN (…)
 *
 * Primary-key lookups; the engine caches the result for a few seconds (TenantDirectory).
 */
export async function findTenants(manager: EntityManager, ids: readonly string[]): Promise<TenantSecretsRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, engine_group, executor_secret, executor_secret_version, previous_executor_secret, previous_secret_expires_at, rate_per_sec, burst, claim_share, executor_networks, xxl_job_access_token
       FROM tenants WHERE id IN (${placeholders(unique.length)})`,
    unique,
  );
  return rows.map((r) => ({
    id: String(r.id),
    engineGroup: String(r.engine_group),
    executorSecret: String(r.executor_secret),
    executorSecretVersion: num(r.executor_secret_version),
    previousExecutorSecret: r.previous_executor_secret === null || r.previous_executor_secret === undefined ? null : String(r.previous_executor_secret),
    previousSecretExpiresAt: r.previous_secret_expires_at === null || r.previous_secret_expires_at === undefined ? null : num(r.previous_secret_expires_at),
    ratePerSec: num(r.rate_per_sec),
    burst: num(r.burst),
    claimShare: num(r.claim_share),
    executorNetworks: typeof r.executor_networks === 'string' ? (JSON.parse(r.executor_networks) as string[] | null) : null,
    xxlJobAccessToken: typeof r.xxl_job_access_token === 'string' ? r.xxl_job_access_token : null,
  }));
}
