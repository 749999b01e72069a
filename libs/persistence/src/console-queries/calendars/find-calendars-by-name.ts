import { In, type EntityManager } from 'typeorm';
import { CalendarEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's calendars of these names (the calendars a task's versions name, for their fire times):
 *
 *   SELECT * FROM calendars WHERE tenant_id = ? AND name IN (…)
 */
export function findCalendarsByName(manager: EntityManager, tenantId: string, names: readonly string[]): Promise<CalendarEntity[]> {
  if (names.length === 0) return Promise.resolve([]);
  return manager.find(CalendarEntity, { where: ofTenant(tenantId, { name: In([...names]) }) });
}
