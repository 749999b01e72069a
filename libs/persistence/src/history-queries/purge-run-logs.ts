import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * Deletes the logs of the tenant's runs that ended in [from, before), up to `limit` runs' worth:
 *
 *   SELECT id, finished_at FROM runs WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ?
 *    ORDER BY finished_at LIMIT ?
 *   DELETE FROM run_logs WHERE run_id IN (…)
 *
 * Through ix_runs_tenant_finished and ix_run_logs_run: run_logs has no index by time, and needs
 * none. Returns where the next call starts (`before` when this one reached it).
 */
export async function purgeRunLogs(manager: EntityManager, input: { tenantId: string; from: number; before: number; limit: number }): Promise<{ next: number; deleted: number }> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, finished_at FROM runs WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ? ORDER BY finished_at LIMIT ?`,
    [input.tenantId, input.from, input.before, input.limit],
  );
  if (rows.length === 0) return { next: input.before, deleted: 0 };
  const ids = rows.map((r) => num(r.id));
  const { affected } = await execute(manager, `DELETE FROM run_logs WHERE run_id IN (${placeholders(ids.length)})`, ids);
  const last = num(rows[rows.length - 1].finished_at);
  // A full page ends inside an instant some of whose runs may be unread: start there again, unless
  // the whole page is that one instant (then step over it; those logs go with their runs).
  const next = rows.length < input.limit ? input.before : last > num(rows[0].finished_at) ? last : last + 1;
  return { next, deleted: affected };
}
