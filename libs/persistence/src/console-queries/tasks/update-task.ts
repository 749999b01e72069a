import type { EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import type { TaskDefinitionColumns } from '../../mappers';

/**
 * Saves a task's new definition, guarded by the version it was read at (a concurrent save makes
 * this match nothing: the caller answers 409), and moves its version on:
 *
 *   UPDATE tasks SET …definition columns…, fire_count = ?, next_fire_at = ?, updated_at = ?, version = version + 1 [, managed_hash = ?]
 *    WHERE id = ? AND tenant_id = ? AND version = ?
 *
 * True when it saved.
 */
export async function updateTask(
  manager: EntityManager,
  input: { tenantId: string; id: number; readVersion: number; columns: TaskDefinitionColumns; fireCount: number; nextFireAt: number | null; now: number; managedHash?: string | null },
): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(TaskEntity)
    .set({ ...input.columns, fireCount: input.fireCount, nextFireAt: input.nextFireAt, updatedAt: input.now, version: () => 'version + 1', ...(input.managedHash === undefined ? {} : { managedHash: input.managedHash }) })
    .where('id = :id AND tenant_id = :tenantId AND version = :version', { id: input.id, tenantId: input.tenantId, version: input.readVersion })
    .execute();
  return Boolean(result.affected);
}
