import type { DataSource } from 'typeorm';
import { RunEntity } from '@baton/persistence';
import type { SeededTenant } from '../../test/cluster/support/seed';

/**
 * Direct seeding of PENDING run rows (cause SCHEDULE, scheduled_at = due_at = `at`), the way the
 * planner would have written them: the benchmarks that measure the claim → dispatch → callback
 * path insert these instead of planning tasks, so the planner's own limits stay out of the figures.
 */
export function pendingRun(tenant: SeededTenant, taskId: number, at: number, fireKey: string, now: number): Partial<RunEntity> {
  return {
    tenantId: tenant.id,
    taskId,
    engineGroup: tenant.engineGroup,
    state: 'PENDING',
    cause: 'SCHEDULE',
    fireKey,
    attempt: 1,
    priority: 0,
    params: null,
    scheduledAt: at,
    dueAt: at,
    createdAt: now,
    updatedAt: now,
  };
}

/** Multi-row INSERTs of `chunk` rows (one statement per chunk: cheap for MariaDB and for the bench process). */
export async function insertRuns(ds: DataSource, rows: Array<Partial<RunEntity>>, chunk = 1000): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) await ds.getRepository(RunEntity).insert(rows.slice(i, i + chunk));
}
