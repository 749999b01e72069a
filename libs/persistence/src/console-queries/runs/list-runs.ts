import type { EntityManager } from 'typeorm';
import { RUN_CAUSES, RUN_STATES, type RunCause, type RunState } from '@baton/domain';
import { RunEntity } from '../../entities';
import { keysetRows, type PageKey } from '../keyset-rows';
import { ofTenant } from '../tenant-scope';

export interface RunListFilter {
  taskId?: number;
  flowId?: number;
  parentRunId?: number;
  /** Scheduled in [from, to). */
  from?: number;
  to?: number;
  state?: readonly RunState[];
  cause?: readonly RunCause[];
}

/**
 * The columns a run list shows (the console's RunView): not params, result, flow params or
 * parent results, up to 64 KB each. Read whole, a 500-run page of runs with 22 KB results was
 * 12 MB from the database, parsed as JSON on the console's one event loop, and every tenant's
 * calls waited seconds behind a few such pages.
 */
export const RUN_LIST_COLUMNS = [
  'id', 'tenantId', 'taskId', 'state', 'cause', 'flowId', 'parentRunId', 'shardIndex', 'shardTotal', 'pinnedExecutorId', 'attempt', 'priority',
  'scheduledAt', 'dueAt', 'lateFromAt', 'executorId', 'dispatchedAt', 'firstDispatchedAt', 'acceptedAt', 'startedAt', 'finishedAt',
  'error', 'progress', 'withdrawal', 'createdAt', 'updatedAt',
] as const satisfies ReadonlyArray<keyof RunEntity>;

/** A run as a list reads it (RUN_LIST_COLUMNS). */
export type ListedRun = Pick<RunEntity, (typeof RUN_LIST_COLUMNS)[number]>;

/**
 * A page of the tenant's runs, newest first (GET /api/runs): `limit + 1` rows below `after`.
 *
 *   SELECT <RUN_LIST_COLUMNS> FROM runs WHERE tenant_id = ? [AND task_id = ?] [AND (flow_id = ? OR id = ?)] [AND parent_run_id = ?]
 *      [AND scheduled_at >= ?] [AND scheduled_at < ?] [AND state = ? AND cause = ?]
 *      [AND key < :after] ORDER BY scheduled_at DESC, id DESC LIMIT :limit + 1
 *
 * A state or cause filter is read as one query per (state, cause) pair, each an ordered range of
 * ix_runs_tenant_filter (ix_runs_task_filter with a task) that stops at the page; without one,
 * ix_runs_tenant_time (ix_runs_task_time).
 */
export function listRuns(manager: EntityManager, tenantId: string, filter: RunListFilter, page: { after: PageKey | null; limit: number }): Promise<ListedRun[]> {
  const base = () => {
    const qb = manager.getRepository(RunEntity).createQueryBuilder('r').select(RUN_LIST_COLUMNS.map((c) => `r.${c}`)).where(ofTenant(tenantId, {}));
    if (filter.taskId !== undefined) qb.andWhere('r.taskId = :taskId', { taskId: filter.taskId });
    if (filter.flowId !== undefined) qb.andWhere('(r.flowId = :flowId OR r.id = :flowId)', { flowId: filter.flowId }); // a root's flow_id is null
    if (filter.parentRunId !== undefined) qb.andWhere('r.parentRunId = :parentRunId', { parentRunId: filter.parentRunId });
    if (filter.from !== undefined) qb.andWhere('r.scheduledAt >= :from', { from: filter.from });
    if (filter.to !== undefined) qb.andWhere('r.scheduledAt < :to', { to: filter.to });
    return qb;
  };
  const filtered = Boolean(filter.state?.length || filter.cause?.length);
  const states = filter.state?.length ? [...new Set(filter.state)] : RUN_STATES;
  const causes = filter.cause?.length ? [...new Set(filter.cause)] : RUN_CAUSES;
  const queries = filtered ? states.flatMap((state) => causes.map((cause) => base().andWhere('r.state = :state AND r.cause = :cause', { state, cause }))) : [base()];
  return keysetRows(queries, { alias: 'r', timeProperty: 'scheduledAt', timeOf: (r) => r.scheduledAt, idOf: (r) => r.id, ...page });
}
