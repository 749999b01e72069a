import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/**
 * An admin removes an executor of the tenant that is DOWN (stopped, or gone silent): its row only —
 * runs that went to it keep their executor id (their detail then shows the executor as gone). A
 * guarded delete, so an executor that heartbeats meanwhile (UP again) stays.
 *
 *   DELETE FROM executors WHERE id = ? AND tenant_id = ? AND state = 'DOWN'
 *
 * True when it was deleted.
 */
export async function deleteDownExecutor(manager: EntityManager, input: { tenantId: string; executorId: number }): Promise<boolean> {
  const { affected } = await execute(manager, "DELETE FROM executors WHERE id = ? AND tenant_id = ? AND state = 'DOWN'", [input.executorId, input.tenantId]);
  return affected > 0;
}
