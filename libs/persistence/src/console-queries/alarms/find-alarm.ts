import type { EntityManager } from 'typeorm';
import { AlarmEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * An alarm of the tenant by id, or null:
 *
 *   SELECT * FROM alarms WHERE id = ? AND tenant_id = ?                            -- primary key
 */
export function findAlarm(manager: EntityManager, tenantId: string, id: number): Promise<AlarmEntity | null> {
  return manager.findOneBy(AlarmEntity, ofTenant(tenantId, { id }));
}

/**
 * The row id of the tenant's alarm of this stable id — its `uid`, or its row id for an alarm
 * raised before alarms had one — or null:
 *
 *   SELECT id FROM alarms WHERE uid = ? AND tenant_id = ?   |   SELECT id FROM alarms WHERE id = ? AND tenant_id = ?
 */
export async function findAlarmId(manager: EntityManager, tenantId: string, key: { uid: string } | { id: number }): Promise<number | null> {
  const row = await manager.findOne(AlarmEntity, { where: ofTenant(tenantId, 'uid' in key ? { uid: key.uid } : { id: key.id }), select: { id: true } });
  return row?.id ?? null;
}
