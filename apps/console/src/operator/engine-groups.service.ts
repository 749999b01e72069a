import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteEngineGroup, EngineGroupEntity, findEngineGroup, insertEngineGroup, inTransaction, isUniqueViolation, listEngineGroups, listEngineNodes, tenantGroupsAcrossTenants, updateEngineGroup } from '@baton/persistence';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { engineGroupsOf, liveEnginesOf } from '../common/live-engines';
import { auditChange } from '../audit';
import { CreateEngineGroupDto, EngineGroupView, EngineNodeView, UpdateEngineGroupDto } from './dto/operator.dto';

@Injectable()
export class EngineGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private async tenantsByGroup(): Promise<Map<string, string[]>> {
    const tenants = await tenantGroupsAcrossTenants(this.dataSource.manager);
    const map = new Map<string, string[]>();
    for (const t of tenants) map.set(t.engineGroup, [...(map.get(t.engineGroup) ?? []), t.id]);
    return map;
  }

  /** The groups as the operator sees them: with their tenants and how many live engines serve each now. */
  private async views(rows: readonly EngineGroupEntity[]): Promise<EngineGroupView[]> {
    const [byGroup, engines] = await Promise.all([this.tenantsByGroup(), listEngineNodes(this.dataSource.manager)]);
    const now = this.clock.now();
    return rows.map((row) => ({ name: row.name, description: row.description, createdAt: row.createdAt, tenants: byGroup.get(row.name) ?? [], liveEngines: liveEnginesOf(engines, row.name, now) }));
  }

  async list(): Promise<EngineGroupView[]> {
    return this.views(await listEngineGroups(this.dataSource.manager));
  }

  async get(name: string): Promise<EngineGroupView> {
    const row = await findEngineGroup(this.dataSource.manager, name);
    if (!row) throw notFound('Engine group', name);
    return (await this.views([row]))[0];
  }

  async create(dto: CreateEngineGroupDto): Promise<EngineGroupView> {
    const duplicate = () => conflict(`Engine group "${dto.name}" already exists`, [{ field: 'name', reason: 'already exists' }]);
    const row = Object.assign(new EngineGroupEntity(), { name: dto.name, description: dto.description ?? '', createdAt: this.clock.now() });
    try {
      await inTransaction(this.dataSource, async (em) => {
        if (await findEngineGroup(em, dto.name)) throw duplicate();
        await insertEngineGroup(em, row);
        await auditChange(em, { tenantId: null, objectType: 'engine-group', objectId: row.name, after: { name: row.name, description: row.description } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
    return (await this.views([row]))[0];
  }

  async update(name: string, dto: UpdateEngineGroupDto): Promise<EngineGroupView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findEngineGroup(em, name);
      if (!row) throw notFound('Engine group', name);
      await updateEngineGroup(em, name, dto.description);
      await auditChange(em, { tenantId: null, objectType: 'engine-group', objectId: name, before: { name, description: row.description }, after: { name, description: dto.description } });
    });
    return this.get(name);
  }

  /** Deleting a group that tenants are bound to is refused (409). */
  async delete(name: string): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findEngineGroup(em, name);
      if (!row) throw notFound('Engine group', name);
      const bound = await tenantGroupsAcrossTenants(em, name);
      if (bound.length > 0) {
        throw conflict(`Engine group "${name}" serves tenants ${bound.map((t) => t.id).join(', ')}; move them first`, [
          { field: 'name', reason: 'engine group in use by tenants' },
        ]);
      }
      await deleteEngineGroup(em, name);
      await auditChange(em, { tenantId: null, objectType: 'engine-group', objectId: name, before: { name, description: row.description } });
    });
  }

  async nodes(): Promise<EngineNodeView[]> {
    const rows = await listEngineNodes(this.dataSource.manager);
    return rows.map((row) => ({
      id: row.id,
      groups: engineGroupsOf(row.groups),
      host: row.host,
      pid: row.pid,
      url: row.url,
      slots: row.slots,
      startedAt: row.startedAt,
      heartbeatAt: row.heartbeatAt,
      clockOffsetMs: row.clockOffsetMs,
      state: row.state,
    }));
  }
}
