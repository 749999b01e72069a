import type { EntityManager } from 'typeorm';
import type { ExclusionCalendar, TaskDefinition } from '@baton/domain';
import { calendarNames, findCalendar, findCalendarByName, taskEntityToDefinition, type TaskEntity } from '@baton/persistence';
import { invalid } from './task-input';

/** The names of the calendars of these tasks, by calendar id. */
export function calendarNamesOf(em: EntityManager, tenantId: string, rows: TaskEntity[]): Promise<Map<number, string>> {
  return calendarNames(em, tenantId, [...new Set(rows.map((r) => r.calendarId).filter((c): c is number => c !== null))]);
}

/** A stored task as a definition (its calendar by name). */
export async function definitionOf(em: EntityManager, row: TaskEntity): Promise<TaskDefinition> {
  const calendar = row.calendarId === null ? null : await findCalendar(em, row.tenantId, row.calendarId);
  return taskEntityToDefinition(row, calendar?.name ?? null);
}

/** The calendar a definition names (400 naming `calendarName` when the tenant has none of that name), or null for none. */
export async function resolveCalendar(em: EntityManager, tenantId: string, name: string | null): Promise<{ id: number; definition: ExclusionCalendar } | null> {
  if (name === null) return null;
  const calendar = await calendarByName(em, tenantId, name);
  if (!calendar) invalid([{ field: 'calendarName', reason: `no calendar named "${name}"` }]);
  return calendar;
}

export async function calendarByName(em: EntityManager, tenantId: string, name: string): Promise<{ id: number; definition: ExclusionCalendar } | null> {
  const row = await findCalendarByName(em, tenantId, name);
  return row ? { id: row.id, definition: { name: row.name, timeZone: row.timeZone, dates: row.dates } } : null;
}
