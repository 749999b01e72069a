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
 * The executors table is small (one row per executor process): a scan is fine.
 */
export async function findSilentExecutors(manager: EntityManager, input: { groups: readonly string[]; heartbeatBefore: number }): Promise<SilentExecutorRow[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT e.id, e.tenant_id, e.app, e.url, e.heartbeat_at
       FROM executors e JOIN tenants t ON t.id = e.tenant_id
      WHERE t.engine_group IN (${placeholders(input.groups.length)}) AND e.state = 'UP' AND e.heartbeat_at < ?`,
    [...input.groups, input.heartbeatBefore],
  );
  return rows.map((r) => ({ id: num(r.id), tenantId: String(r.tenant_id), app: String(r.app), url: String(r.url), heartbeatAt: num(r.heartbeat_at) }));
}
