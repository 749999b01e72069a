import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/**
 * The app names the tenant's tasks and executors use, sorted (the "Connect an executor" panel):
 *
 *   SELECT DISTINCT executor_app AS app FROM tasks WHERE tenant_id = ?
 *   SELECT DISTINCT app FROM executors WHERE tenant_id = ?
 */
export async function tenantAppNames(manager: EntityManager, tenantId: string): Promise<string[]> {
  const [tasks, executors] = await Promise.all([
    execute<{ app: string }>(manager, 'SELECT DISTINCT executor_app AS app FROM tasks WHERE tenant_id = ?', [tenantId]),
    execute<{ app: string }>(manager, 'SELECT DISTINCT app FROM executors WHERE tenant_id = ?', [tenantId]),
  ]);
  return [...new Set([...tasks.rows, ...executors.rows].map((r) => r.app))].sort();
}
