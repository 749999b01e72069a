import { In, Not, type EntityManager } from 'typeorm';
import { CalendarEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * A calendar of the tenant by id, or null:
 *
 *   SELECT * FROM calendars WHERE id = ? AND tenant_id = ?
 */
export function findCalendar(manager: EntityManager, tenantId: string, id: number): Promise<CalendarEntity | null> {
  return manager.findOneBy(CalendarEntity, ofTenant(tenantId, { id }));
}

/**
 * A calendar of the tenant by name (a task names its calendar), or null:
 *
 *   SELECT * FROM calendars WHERE tenant_id = ? AND name = ?
 */
export function findCalendarByName(manager: EntityManager, tenantId: string, name: string): Promise<CalendarEntity | null> {
  return manager.findOneBy(CalendarEntity, ofTenant(tenantId, { name }));
}

/**
 * The names of the tenant's calendars of these ids (a page of tasks shows them):
 *
 *   SELECT id, name FROM calendars WHERE tenant_id = ? AND id IN (…)
 */
export async function calendarNames(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await manager.find(CalendarEntity, { where: ofTenant(tenantId, { id: In([...ids]) }), select: { id: true, name: true } });
  return new Map(rows.map((c) => [c.id, c.name]));
}

/**
 * The tenant's calendars by name (GET /api/calendars):
 *
 *   SELECT * FROM calendars WHERE tenant_id = ? ORDER BY name
 */
export function listCalendars(manager: EntityManager, tenantId: string): Promise<CalendarEntity[]> {
  return manager.find(CalendarEntity, { where: ofTenant(tenantId, {}), order: { name: 'ASC' } });
}

/**
 * Whether the tenant has a calendar of this name, other than `exceptId` (a save's name check):
 *
 *   SELECT 1 FROM calendars WHERE tenant_id = ? AND name = ? [AND id <> ?] LIMIT 1
 */
export function calendarNameTaken(manager: EntityManager, tenantId: string, name: string, exceptId: number | null = null): Promise<boolean> {
  return manager.existsBy(CalendarEntity, ofTenant(tenantId, exceptId === null ? { name } : { name, id: Not(exceptId) }));
}
