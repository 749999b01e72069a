import type { EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * Marks a task as managed by a config file (the hash of the definition the file gives it), its
 * definition unchanged — so neither `version` nor `updated_at` moves:
 *
 *   UPDATE tasks SET managed_hash = ? WHERE id = ? AND tenant_id = ?
 */
export async function setManagedHash(manager: EntityManager, tenantId: string, id: number, managedHash: string): Promise<void> {
  await manager.update(TaskEntity, ofTenant(tenantId, { id }), { managedHash });
}
