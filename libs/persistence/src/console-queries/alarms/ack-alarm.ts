import { IsNull, type EntityManager } from 'typeorm';
import { AlarmEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * Acknowledges an alarm of the tenant; one acknowledged already keeps its first acknowledgement:
 *
 *   UPDATE alarms SET acked_at = ?, acked_by = ? WHERE id = ? AND tenant_id = ? AND acked_at IS NULL
 */
export async function ackAlarm(manager: EntityManager, tenantId: string, id: number, ack: { now: number; by: string }): Promise<void> {
  await manager.update(AlarmEntity, ofTenant(tenantId, { id, ackedAt: IsNull() }), { ackedAt: ack.now, ackedBy: ack.by.slice(0, 100) });
}
