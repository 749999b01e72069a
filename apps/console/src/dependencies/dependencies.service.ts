import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { CycleError, findCycle, type DependencyEdge } from '@baton/domain';
import { inTransaction, isUniqueViolation, TaskDependencyEntity, TaskEntity, TenantEntity } from '@baton/persistence';
import { ApiException, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import type { CreateDependencyDto, DependencyQuery, DependencyView } from './dto/dependency.dto';

@Injectable()
export class DependenciesService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private async views(tenantId: string, rows: TaskDependencyEntity[], em: EntityManager = this.dataSource.manager): Promise<DependencyView[]> {
    const ids = [...new Set(rows.flatMap((r) => [r.parentTaskId, r.childTaskId]))];
    const tasks = ids.length
      ? await em.find(TaskEntity, { where: { tenantId, id: In(ids) }, select: { id: true, name: true } })
      : [];
    const names = new Map(tasks.map((t) => [t.id, t.name]));
    return rows.map((r) => ({
      id: r.id,
      parentTaskId: r.parentTaskId,
      parentName: names.get(r.parentTaskId) ?? '',
      childTaskId: r.childTaskId,
      childName: names.get(r.childTaskId) ?? '',
      condition: r.condition,
      createdAt: r.createdAt,
    }));
  }

  async list(tenantId: string, query: DependencyQuery): Promise<DependencyView[]> {
    const where =
      query.taskId === undefined
        ? { tenantId }
        : [
            { tenantId, parentTaskId: query.taskId },
            { tenantId, childTaskId: query.taskId },
          ];
    const rows = await this.dataSource.getRepository(TaskDependencyEntity).find({ where, order: { id: 'ASC' } });
    return this.views(tenantId, rows);
  }

  async get(tenantId: string, id: number): Promise<DependencyView> {
    const row = await this.dataSource.getRepository(TaskDependencyEntity).findOneBy({ id, tenantId });
    if (!row) throw notFound('Dependency', id);
    return (await this.views(tenantId, [row]))[0];
  }

  /**
   * Adds an edge parent → child. Both tasks must be the tenant's (another tenant's task is as
   * unknown as a missing one: 404). An edge that would close a cycle is refused with 409
   * DEPENDENCY_CYCLE naming the cycle, and nothing is stored. On MySQL the tenant row is locked
   * for the check, so two concurrent edges cannot close a cycle together; SQLite transactions
   * are serialised anyway.
   */
  async create(tenantId: string, dto: CreateDependencyDto): Promise<DependencyView> {
    const duplicate = () =>
      conflict('This dependency edge already exists', [{ field: 'childTaskId', reason: 'the edge parent → child already exists' }]);
    try {
      return await inTransaction(this.dataSource, async (em) => {
        if (this.dataSource.options.type === 'mysql') {
          await em.createQueryBuilder(TenantEntity, 't').setLock('pessimistic_write').where('t.id = :tenantId', { tenantId }).getOne();
        }
        const parent = await em.findOne(TaskEntity, { where: { id: dto.parentTaskId, tenantId }, select: { id: true, name: true } });
        if (!parent) throw new ApiException(404, `Task ${dto.parentTaskId} not found`, { errors: [{ field: 'parentTaskId', reason: `no task ${dto.parentTaskId}` }] });
        const child = await em.findOne(TaskEntity, { where: { id: dto.childTaskId, tenantId }, select: { id: true, name: true } });
        if (!child) throw new ApiException(404, `Task ${dto.childTaskId} not found`, { errors: [{ field: 'childTaskId', reason: `no task ${dto.childTaskId}` }] });
        if (await em.existsBy(TaskDependencyEntity, { tenantId, parentTaskId: parent.id, childTaskId: child.id })) throw duplicate();

        const existing = await em.find(TaskDependencyEntity, { where: { tenantId }, order: { id: 'ASC' } });
        const edgeNames = await this.views(tenantId, existing, em);
        const edges: DependencyEdge[] = edgeNames.map((e) => ({ parent: e.parentName, child: e.childName, condition: e.condition }));
        const cycle = findCycle(edges, { parent: parent.name, child: child.name });
        if (cycle) {
          const error = new CycleError(cycle);
          throw new ApiException(409, error.message, { code: error.code, cycle: [...error.cycle] });
        }
        const row = em.create(TaskDependencyEntity, {
          tenantId,
          parentTaskId: parent.id,
          childTaskId: child.id,
          condition: dto.condition ?? 'ON_SUCCESS',
          createdAt: this.clock.now(),
        });
        await em.insert(TaskDependencyEntity, row);
        const view = (await this.views(tenantId, [row], em))[0];
        await auditChange(em, { tenantId, objectType: 'dependency', objectId: row.id, after: view });
        return view;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  async update(tenantId: string, id: number, condition: DependencyView['condition']): Promise<DependencyView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(TaskDependencyEntity, { id, tenantId });
      if (!row) throw notFound('Dependency', id);
      const [before] = await this.views(tenantId, [row], em);
      await em.update(TaskDependencyEntity, { id, tenantId }, { condition });
      await auditChange(em, { tenantId, objectType: 'dependency', objectId: id, before, after: { ...before, condition } });
    });
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(TaskDependencyEntity, { id, tenantId });
      if (!row) throw notFound('Dependency', id);
      const [before] = await this.views(tenantId, [row], em);
      await em.delete(TaskDependencyEntity, { id, tenantId });
      await auditChange(em, { tenantId, objectType: 'dependency', objectId: id, before });
    });
  }
}
