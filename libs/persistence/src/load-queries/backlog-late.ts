import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';

/**
 * The BACKLOG_LATE election: the engine whose update moves the tenant into a late episode writes
 * the alarm, in the same transaction; the others match nothing (as electLateRuns for START_LATE).
 *
 *   UPDATE tenants SET backlog_late_since = ? WHERE id = ? AND backlog_late_since IS NULL
 */
export async function markBacklogLate(manager: EntityManager, tenantId: string, now: number): Promise<boolean> {
  const { affected } = await execute(manager, 'UPDATE tenants SET backlog_late_since = ? WHERE id = ? AND backlog_late_since IS NULL', [now, tenantId]);
  return affected > 0;
}

/**
 * The episode is over (the backlog caught up): the next late backlog is news again.
 *
 *   UPDATE tenants SET backlog_late_since = NULL WHERE id = ? AND backlog_late_since IS NOT NULL
 */
export async function clearBacklogLate(manager: EntityManager, tenantId: string): Promise<boolean> {
  const { affected } = await execute(manager, 'UPDATE tenants SET backlog_late_since = NULL WHERE id = ? AND backlog_late_since IS NOT NULL', [tenantId]);
  return affected > 0;
}
