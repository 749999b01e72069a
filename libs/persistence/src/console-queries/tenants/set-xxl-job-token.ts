import type { EntityManager } from 'typeorm';
import { TenantEntity } from '../../entities';

/**
 * The tenant's XXL-JOB access token (null: none, its XXL-JOB admin API refuses everything):
 *
 *   UPDATE tenants SET xxl_job_access_token = ? WHERE id = ?
 *
 * A primary-key update; the last writer wins (a token is set, not rotated: xxl-job-core knows one
 * token, so there is no overlap window to guard). True when the tenant exists.
 */
export async function setXxlJobToken(manager: EntityManager, input: { tenantId: string; token: string | null }): Promise<boolean> {
  const result = await manager.update(TenantEntity, { id: input.tenantId }, { xxlJobAccessToken: input.token });
  return Boolean(result.affected);
}
