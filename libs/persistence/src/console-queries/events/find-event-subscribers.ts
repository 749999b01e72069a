import type { EventFilter, EventProjection } from '@baton/domain';
import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../../engine-queries/sql';

/** A task an event may start: its EVENT trigger's name, filter and projection. */
export interface EventSubscriber {
  taskId: number;
  event: string;
  filter: EventFilter;
  params: EventProjection | null;
}

/**
 * The tenant's unpaused tasks whose EVENT trigger names one of these events, in one read through
 * ix_tasks_event (tenant_id, event_name) — an event never reads other tenants' tasks, nor the
 * tenant's other tasks:
 *
 *   SELECT id, event_name, event_filter, event_params FROM tasks
 *    WHERE tenant_id = ? AND event_name IN (…) AND trigger_kind = 'EVENT' AND paused = 0
 *
 * A paused task is not started by events (pausing stops what starts by itself; a trigger by hand
 * still runs it).
 */
export async function findEventSubscribers(manager: EntityManager, tenantId: string, names: readonly string[]): Promise<EventSubscriber[]> {
  if (names.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, event_name, event_filter, event_params FROM tasks WHERE tenant_id = ? AND event_name IN (${placeholders(names.length)}) AND trigger_kind = 'EVENT' AND paused = 0 ORDER BY id`,
    [tenantId, ...names],
  );
  return rows.map((r) => ({
    taskId: num(r.id),
    event: String(r.event_name),
    filter: r.event_filter === null || r.event_filter === undefined ? {} : (JSON.parse(String(r.event_filter)) as EventFilter),
    params: r.event_params === null || r.event_params === undefined ? null : (JSON.parse(String(r.event_params)) as EventProjection),
  }));
}
