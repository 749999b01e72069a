import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { taskRetention, tenantRetention, validateRetention, type RetentionLevel } from '@baton/domain';
import { deleteRetentionPolicy, findRetentionPolicy, findTask, inTransaction, listRetentionPolicies, RetentionPolicyEntity, saveRetentionPolicy } from '@baton/persistence';
import { auditChange } from '../audit';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../common/options';
import type { RetentionView, TaskRetentionDto, TenantRetentionDto } from './dto/retention.dto';

const TENANT_ROW = 0;

/** How long a tenant's history is kept: its policy and its tasks' overrides (the engines' history job applies them). */
@Injectable()
export class RetentionService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  async get(tenantId: string): Promise<RetentionView> {
    const rows = await listRetentionPolicies(this.dataSource.manager, tenantId);
    const ceiling = this.options.retentionCeiling;
    const own = rows.find((r) => r.taskId === TENANT_ROW) ?? null;
    const effective = tenantRetention(ceiling, own);
    return {
      ceiling,
      tenant: { runsMs: own?.runsMs ?? null, logsMs: own?.logsMs ?? null, alarmsMs: own?.alarmsMs ?? null, minRunsKept: own?.minRunsKept ?? null },
      effective,
      tasks: rows
        .filter((r) => r.taskId !== TENANT_ROW)
        .map((r) => ({ taskId: r.taskId, runsMs: r.runsMs, minRunsKept: r.minRunsKept, effective: taskRetention(ceiling, effective, r) })),
    };
  }

  async setTenant(tenantId: string, body: TenantRetentionDto): Promise<RetentionView> {
    const level = this.level(body, ['runsMs', 'logsMs', 'alarmsMs', 'minRunsKept']);
    await inTransaction(this.dataSource, (em) => this.save(em, tenantId, TENANT_ROW, level));
    return this.get(tenantId);
  }

  async setTask(tenantId: string, taskId: number, body: TaskRetentionDto): Promise<RetentionView> {
    const level = this.level(body, ['runsMs', 'minRunsKept']);
    await inTransaction(this.dataSource, async (em) => {
      await this.ownTask(em, tenantId, taskId);
      await this.save(em, tenantId, taskId, level);
    });
    return this.get(tenantId);
  }

  async clearTask(tenantId: string, taskId: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      await this.ownTask(em, tenantId, taskId);
      const before = await findRetentionPolicy(em, tenantId, taskId);
      await deleteRetentionPolicy(em, tenantId, taskId);
      await auditChange(em, { tenantId, objectType: 'retention', objectId: taskId, before: before && levelOf(before) });
    });
  }

  private level(body: object, fields: ReadonlyArray<keyof RetentionLevel>): RetentionLevel {
    const raw = body as Record<string, unknown>;
    const level = Object.fromEntries(fields.map((f) => [f, raw[f] ?? null])) as unknown as RetentionLevel;
    const errors = validateRetention(level, this.options.retentionCeiling);
    if (errors.length > 0) throw badRequest(errors);
    return level;
  }

  /** Stores a level (the tenant's: taskId TENANT_ROW) and audits it, in the caller's transaction. */
  private async save(em: EntityManager, tenantId: string, taskId: number, level: RetentionLevel): Promise<void> {
    const before = await findRetentionPolicy(em, tenantId, taskId);
    await saveRetentionPolicy(em, {
      tenantId,
      taskId,
      runsMs: level.runsMs,
      logsMs: level.logsMs ?? null,
      alarmsMs: level.alarmsMs ?? null,
      minRunsKept: level.minRunsKept,
      updatedAt: this.clock.now(),
    });
    await auditChange(em, { tenantId, objectType: 'retention', objectId: taskId === TENANT_ROW ? null : taskId, before: before && levelOf(before), after: level });
  }

  private async ownTask(em: EntityManager, tenantId: string, taskId: number): Promise<void> {
    if (!(await findTask(em, tenantId, taskId))) throw notFound('Task', taskId);
  }
}

function levelOf(row: RetentionPolicyEntity): RetentionLevel {
  return { runsMs: row.runsMs, logsMs: row.logsMs, alarmsMs: row.alarmsMs, minRunsKept: row.minRunsKept };
}
