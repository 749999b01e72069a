import { Inject, Injectable } from '@nestjs/common';
import { DataSource, FindOptionsWhere } from 'typeorm';
import { ApiKeyEntity, inTransaction, TenantEntity } from '@baton/persistence';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { newApiKey } from '../common/secrets';
import type { ApiKeyRole } from '../api-types';
import { ApiKeyView, CreatedApiKeyView } from './dto/api-key.dto';

export function apiKeyView(row: ApiKeyEntity): ApiKeyView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/** Tenant API keys; used by the tenant's own routes and by the operator's. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(ApiKeyEntity);
  }

  /** Keys of one tenant, or of every tenant when `tenantId` is undefined (operator). */
  async list(tenantId: string | undefined): Promise<ApiKeyView[]> {
    const where: FindOptionsWhere<ApiKeyEntity> = tenantId === undefined ? {} : { tenantId };
    const rows = await this.repo.find({ where, order: { id: 'ASC' } });
    return rows.map(apiKeyView);
  }

  async create(tenantId: string, name: string, role: ApiKeyRole = 'TENANT_VIEWER'): Promise<CreatedApiKeyView> {
    const { key, prefix, hash } = newApiKey();
    const row = this.repo.create({
      tenantId,
      name,
      role,
      prefix,
      keyHash: hash,
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    await inTransaction(this.dataSource, async (em) => {
      if (!(await em.existsBy(TenantEntity, { id: tenantId }))) {
        throw badRequest([{ field: 'tenantId', reason: `no tenant "${tenantId}"` }]);
      }
      await em.insert(ApiKeyEntity, row);
    });
    return { ...apiKeyView(row), key };
  }

  /** Revokes a key of `tenantId` (any tenant's when undefined). Revoking twice is harmless. */
  async revoke(tenantId: string | undefined, id: number): Promise<void> {
    const where: FindOptionsWhere<ApiKeyEntity> = tenantId === undefined ? { id } : { id, tenantId };
    await inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(ApiKeyEntity, where);
      if (!row) throw notFound('API key', id);
      if (row.revokedAt === null) await em.update(ApiKeyEntity, { id: row.id }, { revokedAt: this.clock.now() });
    });
  }
}
