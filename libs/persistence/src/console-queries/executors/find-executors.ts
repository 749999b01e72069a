import type { EntityManager } from 'typeorm';
import type { ExecutorState } from '@baton/domain';
import { ExecutorEntity } from '../../entities';
import { execute, num, placeholders } from '../../engine-queries/sql';
import { ofTenant } from '../tenant-scope';

/**
 * The tenant's executors, by app then id (GET /api/executors):
 *
 *   SELECT * FROM executors WHERE tenant_id = ? [AND app = ?] [AND state = ?] ORDER BY app, id
 */
export function listExecutors(manager: EntityManager, tenantId: string, filter: { app?: string; state?: ExecutorState }): Promise<ExecutorEntity[]> {
  const where = ofTenant(tenantId, { ...(filter.app === undefined ? {} : { app: filter.app }), ...(filter.state === undefined ? {} : { state: filter.state }) });
  return manager.find(ExecutorEntity, { where, order: { app: 'ASC', id: 'ASC' } });
}

/**
 * An executor of the tenant by id, or null:
 *
 *   SELECT * FROM executors WHERE id = ? AND tenant_id = ?                         -- primary key
 */
export function findExecutor(manager: EntityManager, tenantId: string, id: number): Promise<ExecutorEntity | null> {
  return manager.findOneBy(ExecutorEntity, ofTenant(tenantId, { id }));
}

export type LiveExecutor = Pick<ExecutorEntity, 'id' | 'app' | 'handlers' | 'handlerSchemas' | 'heartbeatAt'>;

/**
 * The tenant's UP executors of these apps, heard from last at the end (a task save checks its
 * params against the schema the latest of them declares; every submission with params too):
 *
 *   SELECT id, app, handlers, handler_schemas, heartbeat_at FROM executors
 *    WHERE tenant_id = ? AND app IN (…) AND state = 'UP' ORDER BY heartbeat_at, id
 *
 * Plain SQL, not a TypeORM find: it is on every submission's path, where building the find's
 * query cost more CPU than the database's answer (bench on-demand --profile).
 */
export async function findLiveExecutors(manager: EntityManager, tenantId: string, apps: readonly string[]): Promise<LiveExecutor[]> {
  const unique = [...new Set(apps)];
  if (unique.length === 0) return [];
  const { rows } = await execute(
    manager,
    `SELECT id, app, handlers, handler_schemas, heartbeat_at FROM executors
      WHERE tenant_id = ? AND app IN (${placeholders(unique.length)}) AND state = 'UP' ORDER BY heartbeat_at, id`,
    [tenantId, ...unique],
  );
  return rows.map((r) => ({
    id: num(r.id),
    app: String(r.app),
    handlers: jsonOrNull(r.handlers) as string[] | null,
    handlerSchemas: jsonOrNull(r.handler_schemas),
    heartbeatAt: num(r.heartbeat_at),
  }));
}

function jsonOrNull(value: unknown): unknown {
  return value === null || value === undefined ? null : JSON.parse(String(value));
}
