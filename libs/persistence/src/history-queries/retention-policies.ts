import type { EntityManager } from 'typeorm';
import { execute, num, numOrNull } from '../engine-queries/sql';

export interface StoredRetention {
  taskId: number;
  runsMs: number | null;
  logsMs: number | null;
  alarmsMs: number | null;
  minRunsKept: number | null;
}

/**
 * A tenant's retention rows, its own (task 0) and its tasks' overrides:
 *
 *   SELECT task_id, runs_ms, logs_ms, alarms_ms, min_runs_kept FROM retention_policies WHERE tenant_id = ?
 */
export async function findRetentionPolicies(manager: EntityManager, tenantId: string): Promise<StoredRetention[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT task_id, runs_ms, logs_ms, alarms_ms, min_runs_kept FROM retention_policies WHERE tenant_id = ?`,
    [tenantId],
  );
  return rows.map((r) => ({ taskId: num(r.task_id), runsMs: numOrNull(r.runs_ms), logsMs: numOrNull(r.logs_ms), alarmsMs: numOrNull(r.alarms_ms), minRunsKept: numOrNull(r.min_runs_kept) }));
}
