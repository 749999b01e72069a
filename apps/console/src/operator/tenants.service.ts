import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, In } from 'typeorm';
import { EngineGroupEntity, inTransaction, isUniqueViolation, RunEntity, TaskEntity, TenantEntity } from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';

import { CreateTenantDto, TenantView, UpdateTenantDto } from './dto/operator.dto';

/** Runs not yet owned by an engine: moving a tenant to another group moves these with it. */
const UNCLAIMED_RUN_STATES = ['PENDING', 'RETRY_WAIT'] as const;

export function tenantView(row: TenantEntity, withSecret: boolean): TenantView {
  return {
    id: row.id,
    name: row.name,
    engineGroup: row.engineGroup,
    ratePerSec: row.ratePerSec,
    burst: row.burst,
    createdAt: row.createdAt,
    ...(withSecret ? { executorSecret: row.executorSecret } : {}),
  };
}

@Injectable()
export class TenantsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(): Promise<TenantView[]> {
    const rows = await this.dataSource.getRepository(TenantEntity).find({ order: { id: 'ASC' } });
    return rows.map((row) => tenantView(row, false));
  }

  async get(id: string): Promise<TenantView> {
    const row = await this.dataSource.getRepository(TenantEntity).findOneBy({ id });
    if (!row) throw notFound('Tenant', id);
    return tenantView(row, true);
  }

  async create(dto: CreateTenantDto): Promise<TenantView> {
    try {
      return await inTransaction(this.dataSource, async (em) => {
        if (!(await em.existsBy(EngineGroupEntity, { name: dto.engineGroup }))) {
          throw badRequest([{ field: 'engineGroup', reason: `no engine group "${dto.engineGroup}"` }]);
        }
        if (await em.existsBy(TenantEntity, { id: dto.id })) {
          throw conflict(`Tenant "${dto.id}" already exists`, [{ field: 'id', reason: 'already exists' }]);
        }
        const row = em.create(TenantEntity, {
          id: dto.id,
          name: dto.name,
          engineGroup: dto.engineGroup,
          executorSecret: randomBytes(32).toString('hex'),
          ratePerSec: dto.ratePerSec ?? 1000,
          burst: dto.burst ?? 2000,
          createdAt: this.clock.now(),
        });
        await em.insert(TenantEntity, row);
        return tenantView(row, true);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Tenant "${dto.id}" already exists`, [{ field: 'id', reason: 'already exists' }]);
      throw error;
    }
  }

  /** Updates a tenant; a new engine group is copied onto its tasks and unclaimed runs in the same transaction. */
  async update(id: string, dto: UpdateTenantDto): Promise<TenantView> {
    return inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(TenantEntity, { id });
      if (!row) throw notFound('Tenant', id);
      if (dto.engineGroup !== undefined && dto.engineGroup !== row.engineGroup) {
        if (!(await em.existsBy(EngineGroupEntity, { name: dto.engineGroup }))) {
          throw badRequest([{ field: 'engineGroup', reason: `no engine group "${dto.engineGroup}"` }]);
        }
        await em.update(TaskEntity, { tenantId: id }, { engineGroup: dto.engineGroup });
        await em.update(
          RunEntity,
          { tenantId: id, state: In([...UNCLAIMED_RUN_STATES]) },
          { engineGroup: dto.engineGroup, updatedAt: this.clock.now() },
        );
        row.engineGroup = dto.engineGroup;
      }
      if (dto.name !== undefined) row.name = dto.name;
      if (dto.ratePerSec !== undefined) row.ratePerSec = dto.ratePerSec;
      if (dto.burst !== undefined) row.burst = dto.burst;
      await em.update(
        TenantEntity,
        { id },
        { name: row.name, engineGroup: row.engineGroup, ratePerSec: row.ratePerSec, burst: row.burst },
      );
      return tenantView(row, true);
    });
  }
}
