import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { taskRetention, tenantRetention, validateRetention, type RetentionLevel } from '@baton/domain';
import { RetentionPolicyEntity, TaskEntity } from '@baton/persistence';
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
    const rows = await this.dataSource.getRepository(RetentionPolicyEntity).find({ where: { tenantId }, order: { taskId: 'ASC' } });
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
    await this.save(tenantId, TENANT_ROW, level);
    return this.get(tenantId);
  }

  async setTask(tenantId: string, taskId: number, body: TaskRetentionDto): Promise<RetentionView> {
    await this.ownTask(tenantId, taskId);
    await this.save(tenantId, taskId, this.level(body, ['runsMs', 'minRunsKept']));
    return this.get(tenantId);
  }

  async clearTask(tenantId: string, taskId: number): Promise<void> {
    await this.ownTask(tenantId, taskId);
    await this.dataSource.getRepository(RetentionPolicyEntity).delete({ tenantId, taskId });
  }

  private level(body: object, fields: ReadonlyArray<keyof RetentionLevel>): RetentionLevel {
    const raw = body as Record<string, unknown>;
    const level = Object.fromEntries(fields.map((f) => [f, raw[f] ?? null])) as unknown as RetentionLevel;
    const errors = validateRetention(level, this.options.retentionCeiling);
    if (errors.length > 0) throw badRequest(errors);
    return level;
  }

  private async save(tenantId: string, taskId: number, level: RetentionLevel): Promise<void> {
    await this.dataSource.getRepository(RetentionPolicyEntity).save({
      tenantId,
      taskId,
      runsMs: level.runsMs,
      logsMs: level.logsMs ?? null,
      alarmsMs: level.alarmsMs ?? null,
      minRunsKept: level.minRunsKept,
      updatedAt: this.clock.now(),
    });
  }

  private async ownTask(tenantId: string, taskId: number): Promise<void> {
    if (!(await this.dataSource.getRepository(TaskEntity).existsBy({ id: taskId, tenantId }))) throw notFound('Task', taskId);
  }
}
