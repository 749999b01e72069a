import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { ACTIVE_STATES, RUN_CAUSES, RUN_STATES } from '@baton/domain';
import { splitError } from '@baton/protocol';
import { cancelRun, cancelShards, ExecutorEntity, inTransaction, RunEntity, RunLogEntity, TaskEntity } from '@baton/persistence';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import type { Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import type { RunDetailView, RunQuery, RunView } from './dto/run.dto';

export function runView(row: RunEntity, taskName: string | null): RunView {
  return {
    id: row.id,
    taskId: row.taskId,
    taskName,
    state: row.state,
    cause: row.cause,
    flowId: row.flowId,
    parentRunId: row.parentRunId,
    shardIndex: row.shardIndex,
    shardTotal: row.shardTotal,
    pinnedExecutorId: row.pinnedExecutorId,
    attempt: row.attempt,
    priority: row.priority,
    scheduledAt: row.scheduledAt,
    dueAt: row.dueAt,
    executorId: row.executorId,
    dispatchedAt: row.dispatchedAt,
    acceptedAt: row.acceptedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    error: row.error === null ? null : splitError(row.error).summary,
    progress: row.progress,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Run logs in a detail view are capped; the newest attempt's lines matter most. */
const MAX_LOG_LINES = 1000;

@Injectable()
export class RunsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private async taskNames(tenantId: string, taskIds: number[]): Promise<Map<number, string>> {
    const ids = [...new Set(taskIds)];
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource
      .getRepository(TaskEntity)
      .find({ where: { tenantId, id: In(ids) }, select: { id: true, name: true } });
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /**
   * Newest first, keyset-paged. A state or cause filter is read as one query per (state, cause)
   * pair, each an ordered range of ix_runs_tenant_filter (ix_runs_task_filter with a task) that
   * stops at the page; without one, ix_runs_tenant_time (ix_runs_task_time).
   */
  list(tenantId: string, query: RunQuery): Promise<Page<RunView>> {
    const base = () => {
      const qb = this.dataSource.getRepository(RunEntity).createQueryBuilder('r').where('r.tenantId = :tenantId', { tenantId });
      if (query.taskId !== undefined) qb.andWhere('r.taskId = :taskId', { taskId: query.taskId });
      if (query.flowId !== undefined) qb.andWhere('r.flowId = :flowId', { flowId: query.flowId });
      if (query.parentRunId !== undefined) qb.andWhere('r.parentRunId = :parentRunId', { parentRunId: query.parentRunId });
      if (query.from !== undefined) qb.andWhere('r.scheduledAt >= :from', { from: query.from });
      if (query.to !== undefined) qb.andWhere('r.scheduledAt < :to', { to: query.to });
      return qb;
    };
    const filtered = Boolean(query.state?.length || query.cause?.length);
    const states = query.state?.length ? [...new Set(query.state)] : RUN_STATES;
    const causes = query.cause?.length ? [...new Set(query.cause)] : RUN_CAUSES;
    const queries = filtered
      ? states.flatMap((state) => causes.map((cause) => base().andWhere('r.state = :state AND r.cause = :cause', { state, cause })))
      : [base()];
    return keysetPage(
      queries,
      { alias: 'r', timeProperty: 'scheduledAt', timeOf: (r) => r.scheduledAt, idOf: (r) => r.id, cursor: query.cursor, limit: query.limit },
      async (rows) => {
        const names = await this.taskNames(tenantId, rows.map((r) => r.taskId));
        return rows.map((r) => runView(r, names.get(r.taskId) ?? null));
      },
    );
  }

  async get(tenantId: string, id: number): Promise<RunDetailView> {
    const row = await this.dataSource.getRepository(RunEntity).findOneBy({ id, tenantId });
    if (!row) throw notFound('Run', id);
    const [names, logs, executor] = await Promise.all([
      this.taskNames(tenantId, [row.taskId]),
      this.dataSource.getRepository(RunLogEntity).find({ where: { runId: id, tenantId }, order: { id: 'ASC' }, take: MAX_LOG_LINES }),
      row.executorId === null
        ? null
        : this.dataSource.getRepository(ExecutorEntity).findOne({ where: { id: row.executorId, tenantId }, select: { id: true, app: true, url: true, state: true } }),
    ]);
    return {
      ...runView(row, names.get(row.taskId) ?? null),
      params: row.params,
      result: row.result,
      errorDetail: row.error === null ? null : splitError(row.error).detail,
      executor: executor ? { id: executor.id, app: executor.app, url: executor.url, state: executor.state } : null,
      logs: logs.map((l) => ({ id: l.id, attempt: l.attempt, at: l.at, level: l.level, message: l.message })),
    };
  }

  /**
   * Cancels a run that is not over yet (cancelRun: one guarded update); else 409 naming its state.
   * A fan-out run takes its live shards with it — cancelled first, as the engines lock a shard
   * before its fan-out run. A shard alone is refused: its fan-out run would wait for it forever,
   * and the engines, not the console, end a fan-out run.
   */
  async cancel(tenantId: string, id: number): Promise<RunDetailView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(RunEntity, { id, tenantId });
      if (!row) throw notFound('Run', id);
      if (row.cause === 'SHARD') {
        throw conflict(`Run ${id} is shard ${row.shardIndex} of run ${row.parentRunId}: cancel run ${row.parentRunId}, which cancels its shards`, [
          { field: 'cause', reason: `is SHARD: a shard is cancelled with its fan-out run ${row.parentRunId}` },
        ]);
      }
      const now = this.clock.now();
      if (row.shardTotal !== null) await cancelShards(em, { parentRunIds: [id], reason: `Cancelled with its fan-out run ${id}`, now });
      const moved = await cancelRun(em, { runId: id, tenantId, now });
      if (!moved) {
        const current = await em.findOneBy(RunEntity, { id, tenantId });
        throw conflict(`Run ${id} is ${current?.state ?? row.state}: only an active run can be cancelled`, [
          { field: 'state', reason: `is ${current?.state ?? row.state}, not one of ${ACTIVE_STATES.join(', ')}` },
        ]);
      }
      await auditChange(em, { tenantId, objectType: 'run', objectId: id, before: { taskId: row.taskId, state: row.state }, after: { taskId: row.taskId, state: 'CANCELLED' } });
    });
    return this.get(tenantId, id);
  }
}
