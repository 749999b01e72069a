import type { EntityManager } from 'typeorm';
import { EventEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * One of the tenant's events, or null (another tenant's is not found):
 *
 *   SELECT * FROM events WHERE tenant_id = ? AND id = ?                       -- primary key
 */
export function findEvent(manager: EntityManager, tenantId: string, id: number): Promise<EventEntity | null> {
  return manager.findOneBy(EventEntity, ofTenant(tenantId, { id }));
}

/**
 * The tenant's events stored under these idempotency keys (a repeat is answered from them before
 * it is written again):
 *
 *   SELECT * FROM events WHERE tenant_id = ? AND idempotency_key IN (…)      -- uq_events_tenant_key
 */
export async function findEventsByKey(manager: EntityManager, tenantId: string, keys: readonly string[]): Promise<EventEntity[]> {
  if (keys.length === 0) return [];
  return manager.createQueryBuilder(EventEntity, 'e').where('e.tenantId = :tenantId AND e.idempotencyKey IN (:...keys)', { tenantId, keys: [...keys] }).getMany();
}
