import type { EntityManager } from 'typeorm';
import { RunEntity } from '../../entities';
import { searchSlice } from '../search-slice';

/** A position in a tenant's runs ordered by (scheduled_at desc, id desc). */
export interface RunKey {
  time: number;
  id: number;
}

export interface RunSearch {
  tenantId: string;
  /** Only this task's runs (a task of the tenant: the caller checks). */
  taskId?: number;
  /** Text to find, a substring (case as the column's collation says). */
  text: string;
  field: 'error' | 'params';
  /** Scheduled in [from, to). */
  from: number;
  to: number;
  /** Go on strictly below this key (a cursor), else from `to` down. */
  after: RunKey | null;
  /** Runs at most examined by this call: what bounds its cost whatever the table's size. */
  scanBudget: number;
  limit: number;
}

export interface RunSearchPage {
  rows: RunEntity[];
  /** Where the next call goes on from (strictly below), or null: the range is searched through. */
  next: RunKey | null;
}

/**
 * Search by error text or params within a time range, at a bounded cost (searchSlice): each call
 * walks at most `scanBudget` runs — first the key `scanBudget` runs below the start, read from the
 * index alone (ix_runs_tenant_time (tenant_id, scheduled_at, id); with a task, ix_runs_task_time,
 * whose InnoDB entries carry the id), then the matches between the two keys, newest first. The
 * caller pages on with `next`: the range is searched a slice at a time, each slice the same
 * bounded cost at 10 thousand or 10 million runs.
 *
 *   SELECT scheduled_at, id FROM runs WHERE tenant_id = ? AND scheduled_at >= :from AND key < :start
 *    ORDER BY scheduled_at DESC, id DESC LIMIT 1 OFFSET :budget - 1
 *   SELECT … FROM runs WHERE tenant_id = ? AND key < :start AND key >= :bound AND error LIKE ?
 *    ORDER BY scheduled_at DESC, id DESC LIMIT :limit + 1
 */
export async function searchRuns(manager: EntityManager, search: RunSearch): Promise<RunSearchPage> {
  const scope = () => {
    const qb = manager.getRepository(RunEntity).createQueryBuilder('r');
    if (search.taskId !== undefined) qb.where('r.taskId = :taskId', { taskId: search.taskId });
    else qb.where('r.tenantId = :tenantId', { tenantId: search.tenantId });
    qb.andWhere('r.scheduledAt >= :from', { from: search.from });
    if (search.after) qb.andWhere('(r.scheduledAt < :startTime OR (r.scheduledAt = :startTime AND r.id < :startId))', { startTime: search.after.time, startId: search.after.id });
    else qb.andWhere('r.scheduledAt < :to', { to: search.to });
    return qb.orderBy('r.scheduledAt', 'DESC').addOrderBy('r.id', 'DESC');
  };
  return searchSlice(scope, {
    alias: 'r',
    timeProperty: 'scheduledAt',
    rawTime: 'r_scheduled_at',
    rawId: 'r_id',
    textProperty: search.field,
    text: search.text,
    scanBudget: search.scanBudget,
    limit: search.limit,
    timeOf: (r) => r.scheduledAt,
    idOf: (r) => r.id,
  });
}
