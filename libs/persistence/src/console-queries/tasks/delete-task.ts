import type { EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * Deletes a task of the tenant (its edges and active runs are the caller's, in the same transaction):
 *
 *   DELETE FROM tasks WHERE id = ? AND tenant_id = ?
 */
export async function deleteTask(manager: EntityManager, tenantId: string, id: number): Promise<void> {
  await manager.delete(TaskEntity, ofTenant(tenantId, { id }));
}
