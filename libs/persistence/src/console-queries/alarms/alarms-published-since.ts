import type { EntityManager } from 'typeorm';
import { AlarmEntity } from '../../entities';

/**
 * Across tenants, deliberately: alarms of every tenant published at or after `since`, or not
 * published yet, oldest first, at most `limit` — what the alarm gateway (one subscription for
 * all tenants; it routes each alarm to its tenant's room) may have missed while it was down:
 *
 *   SELECT * FROM alarms WHERE published_at >= ? OR published_at IS NULL ORDER BY id LIMIT ?   -- ix_alarms_outbox
 */
export function alarmsPublishedSinceAcrossTenants(manager: EntityManager, since: number, limit: number): Promise<AlarmEntity[]> {
  return manager
    .getRepository(AlarmEntity)
    .createQueryBuilder('a')
    .where('(a.publishedAt >= :since OR a.publishedAt IS NULL)', { since })
    .orderBy('a.id', 'ASC')
    .limit(limit)
    .getMany();
}
