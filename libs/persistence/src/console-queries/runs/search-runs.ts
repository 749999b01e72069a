import type { EntityManager } from 'typeorm';
import { RunEntity } from '../../entities';

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

/** LIKE with `!` as the escape character, the same on MySQL and SQLite. */
function containing(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * Search by error text or params within a time range, at a bounded cost. A substring cannot use
 * an index, so a search walks the tenant's runs newest first and tests each — and a walk that
 * stops at `limit` matches costs, for a rare text, every run of the range. So each call walks at
 * most `scanBudget` runs: first the key `scanBudget` runs below the start, read from the index
 * alone (ix_runs_tenant_time (tenant_id, scheduled_at, id); with a task, ix_runs_task_time,
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
  const boundRow = await scope()
    .select(['r.scheduledAt', 'r.id'])
    .offset(search.scanBudget - 1)
    .limit(1)
    .getRawOne<Record<string, unknown>>();
  const bound: RunKey | null = boundRow ? { time: Number(boundRow.r_scheduled_at), id: Number(boundRow.r_id) } : null;
  const matches = scope().andWhere(`r.${search.field} LIKE :text ESCAPE '!'`, { text: containing(search.text) });
  if (bound) matches.andWhere('(r.scheduledAt > :boundTime OR (r.scheduledAt = :boundTime AND r.id >= :boundId))', { boundTime: bound.time, boundId: bound.id });
  const rows = await matches.limit(search.limit + 1).getMany();
  if (rows.length > search.limit) {
    const last = rows[search.limit - 1];
    return { rows: rows.slice(0, search.limit), next: { time: last.scheduledAt, id: last.id } };
  }
  return { rows, next: bound };
}
