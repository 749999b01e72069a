import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findTenant, inTransaction, setXxlJobToken } from '@baton/persistence';
import { xxlJobAdminBase } from '@baton/protocol';
import { auditChange } from '../audit';
import { notFound } from '../common/api-error';
import { newExecutorSecret } from '../common/secrets';
import type { XxlJobTokenView } from './dto/xxl-job-token.dto';

/**
 * A tenant's XXL-JOB access token: what its xxl-job-core executors send to its XXL-JOB admin API
 * on the engines and what the engines send them. Set (or made) and cleared here; engines read
 * it within their tenant cache (5 s). The audit record says that it changed, never the token.
 */
@Injectable()
export class XxlJobTokenService {
  constructor(private readonly dataSource: DataSource) {}

  /** `token` undefined: a new random one (64 hex characters); null: none. */
  async set(tenantId: string, token: string | null | undefined): Promise<XxlJobTokenView> {
    const row = await findTenant(this.dataSource.manager, tenantId);
    if (!row) throw notFound('Tenant', tenantId);
    const accessToken = token === undefined ? newExecutorSecret() : token;
    await inTransaction(this.dataSource, async (em) => {
      await setXxlJobToken(em, { tenantId, token: accessToken });
      await auditChange(em, { tenantId, objectType: 'xxl-job-token', objectId: tenantId, before: { set: row.xxlJobAccessToken !== null }, after: { set: accessToken !== null } });
    });
    return { tenantId, accessToken, adminPath: xxlJobAdminBase(tenantId) };
  }
}
