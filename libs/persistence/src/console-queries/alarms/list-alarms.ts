import type { EntityManager } from 'typeorm';
import { AlarmEntity } from '../../entities';
import { keysetRows, type PageKey } from '../keyset-rows';
import { ofTenant } from '../tenant-scope';

export interface AlarmListFilter {
  acked?: boolean;
  type?: readonly string[];
  taskId?: number;
  /** Raised in [from, to). */
  from?: number;
  to?: number;
}

/**
 * A page of the tenant's alarms, newest first (GET /api/alarms): `limit + 1` rows below `after`.
 *
 *   SELECT * FROM alarms WHERE tenant_id = ? [AND acked_at IS [NOT] NULL] [AND type IN (…)] [AND task_id = ?]
 *      [AND raised_at >= ?] [AND raised_at < ?] [AND key < :after] ORDER BY raised_at DESC, id DESC LIMIT :limit + 1
 */
export function listAlarms(manager: EntityManager, tenantId: string, filter: AlarmListFilter, page: { after: PageKey | null; limit: number }): Promise<AlarmEntity[]> {
  const qb = manager.getRepository(AlarmEntity).createQueryBuilder('a').where(ofTenant(tenantId, {}));
  if (filter.acked === true) qb.andWhere('a.ackedAt IS NOT NULL');
  if (filter.acked === false) qb.andWhere('a.ackedAt IS NULL');
  if (filter.type?.length) qb.andWhere('a.type IN (:...types)', { types: filter.type });
  if (filter.taskId !== undefined) qb.andWhere('a.taskId = :taskId', { taskId: filter.taskId });
  if (filter.from !== undefined) qb.andWhere('a.raisedAt >= :from', { from: filter.from });
  if (filter.to !== undefined) qb.andWhere('a.raisedAt < :to', { to: filter.to });
  return keysetRows([qb], { alias: 'a', timeProperty: 'raisedAt', timeOf: (r) => r.raisedAt, idOf: (r) => r.id, ...page });
}
