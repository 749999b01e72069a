import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';

export interface SilentExecutorRow {
  id: number;
  tenantId: string;
  app: string;
  url: string;
  heartbeatAt: number;
}

/**
 * Watchdog EXECUTOR_DOWN: UP executors of my groups' tenants that have not heartbeaten since
 * `heartbeatBefore`.
 *
 *   SELECT e.id, e.tenant_id, e.app, e.url, e.heartbeat_at
 *     FROM executors e JOIN tenants t ON t.id = e.tenant_id
 *    WHERE t.engine_group IN (…) AND e.state = 'UP' AND e.heartbeat_at < ?
 *
 * Read on every watchdog tick: the `state = 'UP'` range of ix_executors_state, the UP executors
 * only — not the rows of executors long DOWN, which pile up with every restart of a pod that comes
 * back at a new address (see findUpExecutors).
 */
/** The read for `groups` groups: exported so the plan test EXPLAINs this very text. */
export function findSilentExecutorsSql(groups: number): string {
  return `SELECT e.id, e.tenant_id, e.app, e.url, e.heartbeat_at
       FROM executors e JOIN tenants t ON t.id = e.tenant_id
      WHERE t.engine_group IN (${placeholders(groups)}) AND e.state = 'UP' AND e.heartbeat_at < ?`;
}

export async function findSilentExecutors(manager: EntityManager, input: { groups: readonly string[]; heartbeatBefore: number }): Promise<SilentExecutorRow[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(manager, findSilentExecutorsSql(input.groups.length), [...input.groups, input.heartbeatBefore]);
  return rows.map((r) => ({ id: num(r.id), tenantId: String(r.tenant_id), app: String(r.app), url: String(r.url), heartbeatAt: num(r.heartbeat_at) }));
}
