import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { findCycle, readApprovalGate, type ApprovalGate, type DependencyEdge } from '@baton/domain';
import { deleteEdges, edgeExists, findEdge, findTask, insertEdge, inTransaction, isUniqueViolation, listEdges, lockTenant, TaskDependencyEntity, taskNames, updateEdge } from '@baton/persistence';
import { ApiError, badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import { cycleRefusal } from './cycle-refusal';
import { NewParents } from './new-parents';
import type { CreateDependencyDto, DependencyQuery, DependencyView, UpdateDependencyDto } from './dto/dependency.dto';

@Injectable()
export class DependenciesService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly newParents: NewParents,
  ) {}

  private async views(tenantId: string, rows: TaskDependencyEntity[], em: EntityManager = this.dataSource.manager): Promise<DependencyView[]> {
    const names = await taskNames(em, tenantId, [...new Set(rows.flatMap((r) => [r.parentTaskId, r.childTaskId]))]);
    return rows.map((r) => ({
      id: r.id,
      parentTaskId: r.parentTaskId,
      parentName: names.get(r.parentTaskId) ?? '',
      childTaskId: r.childTaskId,
      childName: names.get(r.childTaskId) ?? '',
      condition: r.condition,
      approval: r.approval,
      createdAt: r.createdAt,
    }));
  }

  async list(tenantId: string, query: DependencyQuery): Promise<DependencyView[]> {
    return this.views(tenantId, await listEdges(this.dataSource.manager, tenantId, query.taskId));
  }

  async get(tenantId: string, id: number): Promise<DependencyView> {
    const row = await findEdge(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Dependency', id);
    return (await this.views(tenantId, [row]))[0];
  }

  /**
   * Adds an edge parent → child. Both tasks must be the tenant's (another tenant's task is as
   * unknown as a missing one: 404). An edge that would close a cycle is refused with 409
   * DEPENDENCY_CYCLE naming the cycle and `childTaskId` (cycleRefusal), and nothing is stored. On MySQL the tenant row is locked
   * for the check, so two concurrent edges cannot close a cycle together; SQLite transactions
   * are serialised anyway.
   */
  async create(tenantId: string, dto: CreateDependencyDto): Promise<DependencyView> {
    const approval = approvalOf(dto.approval) ?? null;
    const duplicate = () =>
      conflict('This dependency edge already exists', [{ field: 'childTaskId', reason: 'the edge parent → child already exists' }]);
    try {
      return await inTransaction(this.dataSource, async (em) => {
        await lockTenant(em, tenantId);
        const parent = await findTask(em, tenantId, dto.parentTaskId);
        if (!parent) throw new ApiError(404, `Task ${dto.parentTaskId} not found`, { errors: [{ field: 'parentTaskId', reason: `no task ${dto.parentTaskId}` }] });
        const child = await findTask(em, tenantId, dto.childTaskId);
        if (!child) throw new ApiError(404, `Task ${dto.childTaskId} not found`, { errors: [{ field: 'childTaskId', reason: `no task ${dto.childTaskId}` }] });
        if (await edgeExists(em, tenantId, parent.id, child.id)) throw duplicate();
        const existing = await listEdges(em, tenantId);
        const edgeNames = await this.views(tenantId, existing, em);
        const edges: DependencyEdge[] = edgeNames.map((e) => ({ parent: e.parentName, child: e.childName, condition: e.condition }));
        const cycle = findCycle(edges, { parent: parent.name, child: child.name });
        if (cycle) throw cycleRefusal(cycle, 'childTaskId');
        const row = Object.assign(new TaskDependencyEntity(), {
          tenantId,
          parentTaskId: parent.id,
          childTaskId: child.id,
          condition: dto.condition ?? 'ON_SUCCESS',
          approval,
          createdAt: this.clock.now(),
        });
        await insertEdge(em, row);
        if (!existing.some((e) => e.parentTaskId === parent.id)) await this.newParents.edgesAdded(em, tenantId, [parent.id]);
        const view = (await this.views(tenantId, [row], em))[0];
        await auditChange(em, { tenantId, objectType: 'dependency', objectId: row.id, after: view });
        return view;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  /** Changes an edge's condition and/or approval step (each unchanged when absent; `approval: null` removes the step). */
  async update(tenantId: string, id: number, dto: UpdateDependencyDto): Promise<DependencyView> {
    const approval = approvalOf(dto.approval);
    await inTransaction(this.dataSource, async (em) => {
      const row = await findEdge(em, tenantId, id);
      if (!row) throw notFound('Dependency', id);
      const [before] = await this.views(tenantId, [row], em);
      const change = { condition: dto.condition ?? row.condition, approval: approval === undefined ? row.approval : approval };
      await updateEdge(em, tenantId, id, change);
      await auditChange(em, { tenantId, objectType: 'dependency', objectId: id, before, after: { ...before, ...change } });
    });
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findEdge(em, tenantId, id);
      if (!row) throw notFound('Dependency', id);
      const [before] = await this.views(tenantId, [row], em);
      await deleteEdges(em, tenantId, [id]);
      await auditChange(em, { tenantId, objectType: 'dependency', objectId: id, before });
    });
  }
}

/**
 * The approval step a request gives (undefined: none given; null: none), checked by the domain;
 * 400 naming `approval.<field>` and the reason.
 */
function approvalOf(value: unknown): ApprovalGate | null | undefined {
  if (value === undefined || value === null) return value;
  const read = readApprovalGate(value);
  if (read.gate === null) throw badRequest(read.errors.map((e) => ({ field: e.field ? `approval.${e.field}` : 'approval', reason: e.reason })));
  return read.gate;
}
