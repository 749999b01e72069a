import type { EntityManager } from 'typeorm';
import { CalendarEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * A new calendar of the tenant (its name unique in the tenant):
 *
 *   INSERT INTO calendars (tenant_id, name, time_zone, dates, created_at) VALUES (…)
 */
export async function insertCalendar(manager: EntityManager, row: CalendarEntity): Promise<void> {
  await manager.insert(CalendarEntity, row);
}

/**
 * A calendar's new name, zone and dates:
 *
 *   UPDATE calendars SET name = ?, time_zone = ?, dates = ? WHERE id = ? AND tenant_id = ?
 */
export async function updateCalendar(manager: EntityManager, tenantId: string, id: number, value: { name: string; timeZone: string; dates: string[] }): Promise<void> {
  await manager.update(CalendarEntity, ofTenant(tenantId, { id }), value);
}

/**
 * Deletes a calendar of the tenant (no task uses it: the caller checked):
 *
 *   DELETE FROM calendars WHERE id = ? AND tenant_id = ?
 */
export async function deleteCalendar(manager: EntityManager, tenantId: string, id: number): Promise<void> {
  await manager.delete(CalendarEntity, ofTenant(tenantId, { id }));
}
