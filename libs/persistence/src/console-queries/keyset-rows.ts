import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/** A position in a list ordered by (time desc, id desc): the last row served. */
export interface PageKey {
  time: number;
  id: number;
}

/**
 * Keyset pagination on (time desc, id desc): each query filtered to the rows strictly below
 * `after`, ordered, `limit + 1` rows read (the extra one says whether there is a next page).
 *
 *   … AND (time < ? OR (time = ? AND id < ?)) ORDER BY time DESC, id DESC LIMIT :limit + 1
 *
 * Given several queries (disjoint parts of one list, e.g. one per state of a filter), each is
 * read the same way and the parts merged: with an index per part that holds the order, every
 * part is a range that stops at the page, where one `IN (…)` query would sort all its matches.
 */
export async function keysetRows<E extends ObjectLiteral>(
  queries: ReadonlyArray<SelectQueryBuilder<E>>,
  options: { alias: string; timeProperty: string; timeOf: (row: E) => number; idOf: (row: E) => number; after: PageKey | null; limit: number },
): Promise<E[]> {
  const { alias, timeProperty, after } = options;
  const parts = await Promise.all(
    queries.map((qb) => {
      if (after) {
        qb.andWhere(`(${alias}.${timeProperty} < :cursorTime OR (${alias}.${timeProperty} = :cursorTime AND ${alias}.id < :cursorId))`, { cursorTime: after.time, cursorId: after.id });
      }
      return qb
        .orderBy(`${alias}.${timeProperty}`, 'DESC')
        .addOrderBy(`${alias}.id`, 'DESC')
        .take(options.limit + 1)
        .getMany();
    }),
  );
  return parts.length === 1 ? parts[0] : parts.flat().sort((a, b) => options.timeOf(b) - options.timeOf(a) || options.idOf(b) - options.idOf(a));
}
