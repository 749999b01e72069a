import type { EntityManager } from 'typeorm';
import { EventEntity } from '../../entities';
import type { PageKey } from '../keyset-rows';
import { searchSlice } from '../search-slice';

export interface EventSearch {
  tenantId: string;
  /** Only events of this name. */
  name?: string;
  /** Received in [from, to). */
  from: number;
  to: number;
  /** A substring of the payload's JSON text; undefined: every event. */
  text?: string;
  /** Go on strictly below this key (a cursor), else from `to` down. */
  after: PageKey | null;
  /** With `text`: events at most examined by this call, what bounds its cost whatever the table's size. */
  scanBudget: number;
  limit: number;
}

export interface EventPage {
  rows: EventEntity[];
  /** Where the next call goes on from (strictly below), or null: the range is read through. */
  next: PageKey | null;
}

/**
 * The tenant's events newest first, by name and time range, keyset-paged on (received_at, id)
 * through ix_events_tenant_time or, by name, ix_events_tenant_name:
 *
 *   SELECT * FROM events WHERE tenant_id = ? [AND name = ?] AND received_at >= :from AND key < :start
 *    ORDER BY received_at DESC, id DESC LIMIT :limit + 1
 *
 * With a payload text, a bounded slice as run search takes (searchSlice): at most `scanBudget`
 * events examined a call, the caller paging on with `next`:
 *
 *   SELECT received_at, id FROM events WHERE … ORDER BY received_at DESC, id DESC LIMIT 1 OFFSET :budget - 1
 *   SELECT * FROM events WHERE … AND key >= :bound AND payload LIKE ? ORDER BY … LIMIT :limit + 1
 */
export async function listEvents(manager: EntityManager, search: EventSearch): Promise<EventPage> {
  const scope = () => {
    const qb = manager.getRepository(EventEntity).createQueryBuilder('e').where('e.tenantId = :tenantId', { tenantId: search.tenantId });
    if (search.name !== undefined) qb.andWhere('e.name = :name', { name: search.name });
    qb.andWhere('e.receivedAt >= :from', { from: search.from });
    if (search.after) qb.andWhere('(e.receivedAt < :startTime OR (e.receivedAt = :startTime AND e.id < :startId))', { startTime: search.after.time, startId: search.after.id });
    else qb.andWhere('e.receivedAt < :to', { to: search.to });
    return qb.orderBy('e.receivedAt', 'DESC').addOrderBy('e.id', 'DESC');
  };
  if (search.text !== undefined) {
    return searchSlice(scope, {
      alias: 'e',
      timeProperty: 'receivedAt',
      rawTime: 'e_received_at',
      rawId: 'e_id',
      textProperty: 'payload',
      text: search.text,
      scanBudget: search.scanBudget,
      limit: search.limit,
      timeOf: (e) => e.receivedAt,
      idOf: (e) => e.id,
    });
  }
  const rows = await scope().limit(search.limit + 1).getMany();
  if (rows.length > search.limit) {
    const last = rows[search.limit - 1];
    return { rows: rows.slice(0, search.limit), next: { time: last.receivedAt, id: last.id } };
  }
  return { rows, next: null };
}
