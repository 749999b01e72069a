import type { EntityManager } from 'typeorm';
import type { ExclusionCalendar } from '@baton/domain';
import { execute, num, placeholders } from '../sql';

/**
 * The exclusion calendars of the tasks being planned, by id:
 * `SELECT id, name, time_zone, dates FROM calendars WHERE id IN (…)`.
 * A second small query rather than a join in the task claim: few tasks have a calendar, and
 * the claim (FOR UPDATE) must lock task rows only.
 */
export async function findCalendars(manager: EntityManager, ids: readonly number[]): Promise<Map<number, ExclusionCalendar>> {
  const unique = [...new Set(ids)];
  const out = new Map<number, ExclusionCalendar>();
  if (unique.length === 0) return out;
  const { rows } = await execute<{ id: number; name: string; time_zone: string; dates: string }>(
    manager,
    `SELECT id, name, time_zone, dates FROM calendars WHERE id IN (${placeholders(unique.length)})`,
    unique,
  );
  for (const r of rows) out.set(num(r.id), { name: r.name, timeZone: r.time_zone, dates: JSON.parse(r.dates) as string[] });
  return out;
}
