import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../engine-queries/sql';

/** A tenant the history job has something to do for. */
export interface HistoryWork {
  tenantId: string;
  /** Runs ended since its settled point (or no cursor yet): a rollup to do. */
  hasEnds: boolean;
  /** Its purge is due (history_cursors.purge_due_at). */
  purgeDue: boolean;
}

/**
 * The tenants of these engine groups that the history job has something to do for at `now` and
 * that no other engine holds (the job's work list, one statement a turn):
 *
 *   SELECT * FROM (
 *     SELECT t.id AS tenant_id,
 *            c.tenant_id IS NULL OR c.rolled_until = 0
 *              OR EXISTS (SELECT 1 FROM runs r WHERE r.tenant_id = t.id
 *                            AND r.finished_at >= c.settled_until AND r.finished_at < :endsBefore) AS has_ends,
 *            COALESCE(c.purge_due_at, 0) <= :now AS purge_due
 *       FROM tenants t LEFT JOIN history_cursors c ON c.tenant_id = t.id
 *      WHERE t.engine_group IN (…) AND (c.worker IS NULL OR c.worker = :worker OR c.worker_until < :now)
 *   ) w WHERE has_ends = 1 OR purge_due = 1 ORDER BY tenant_id
 *
 * Why so: a turn used to visit every tenant with ~20 statements whether or not it had anything to
 * do; 1,000 idle tenants kept an idle cluster's MariaDB at 0.50 of a core and each engine at 0.25
 * (docs/BENCHMARKS.md, "A platform's other tenants"). Here an idle tenant costs one probe of
 * ix_runs_tenant_finished (runs ended since the settled point, which lies at or below the rolled
 * point) and one primary-key read of its cursor, inside one statement. `endsBefore` is where the
 * rollup would roll to: ends after it wait for a later turn anyway.
 */
export async function findHistoryWork(manager: EntityManager, input: { groups: readonly string[]; worker: string; now: number; endsBefore: number }): Promise<HistoryWork[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<{ tenant_id: unknown; has_ends: unknown; purge_due: unknown }>(manager, findHistoryWorkSql(input.groups.length), [
    input.endsBefore,
    input.now,
    ...input.groups,
    input.worker,
    input.now,
  ]);
  return rows.map((r) => ({ tenantId: String(r.tenant_id), hasEnds: Number(r.has_ends) === 1, purgeDue: Number(r.purge_due) === 1 }));
}

/** The statement for `groups` engine groups: exported so the plan test EXPLAINs this very text. */
export function findHistoryWorkSql(groups: number): string {
  return `SELECT * FROM (
            SELECT t.id AS tenant_id,
                   (c.tenant_id IS NULL OR c.rolled_until = 0
                     OR EXISTS (SELECT 1 FROM runs r WHERE r.tenant_id = t.id AND r.finished_at >= c.settled_until AND r.finished_at < ?)) AS has_ends,
                   (COALESCE(c.purge_due_at, 0) <= ?) AS purge_due
              FROM tenants t LEFT JOIN history_cursors c ON c.tenant_id = t.id
             WHERE t.engine_group IN (${placeholders(groups)}) AND (c.worker IS NULL OR c.worker = ? OR c.worker_until < ?)
          ) w WHERE has_ends = 1 OR purge_due = 1 ORDER BY tenant_id`;
}
