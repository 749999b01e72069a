import { In, type EntityManager } from 'typeorm';
import type { ExecutorState } from '@baton/domain';
import { ExecutorEntity } from '../../entities';
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
 * params against the schema the latest of them declares):
 *
 *   SELECT id, app, handlers, handler_schemas, heartbeat_at FROM executors
 *    WHERE tenant_id = ? AND app IN (…) AND state = 'UP' ORDER BY heartbeat_at, id
 */
export async function findLiveExecutors(manager: EntityManager, tenantId: string, apps: readonly string[]): Promise<LiveExecutor[]> {
  const unique = [...new Set(apps)];
  if (unique.length === 0) return [];
  return manager.find(ExecutorEntity, {
    where: ofTenant(tenantId, { app: In(unique), state: 'UP' as const }),
    select: { id: true, app: true, handlers: true, handlerSchemas: true, heartbeatAt: true },
    order: { heartbeatAt: 'ASC', id: 'ASC' },
  });
}
