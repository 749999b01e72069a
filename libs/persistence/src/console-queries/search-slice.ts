import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { PageKey } from './keyset-rows';

/** LIKE with `!` as the escape character, the same on MySQL and SQLite. */
export function containing(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * One slice of a substring search over a list ordered by (time desc, id desc), at a bounded cost.
 * A substring cannot use an index, so a search walks the list newest first and tests each row —
 * and a walk that stops at `limit` matches costs, for a rare text, every row of the range. So each
 * call walks at most `scanBudget` rows: first the key `scanBudget` rows below the start, read from
 * the index alone, then the matches between the two keys, newest first. The caller pages on with
 * `next`: the range is searched a slice at a time, each slice the same cost at any table size.
 *
 *   SELECT time, id FROM … WHERE <scope> ORDER BY time DESC, id DESC LIMIT 1 OFFSET :budget - 1
 *   SELECT … FROM … WHERE <scope> AND key >= :bound AND <text column> LIKE ? ORDER BY … LIMIT :limit + 1
 *
 * `scope` gives the list's query (tenant, range, cursor), ordered; `rawTime` and `rawId` name the
 * raw result's columns of the first read (TypeORM's `<alias>_<column>`).
 */
export async function searchSlice<E extends ObjectLiteral>(
  scope: () => SelectQueryBuilder<E>,
  options: { alias: string; timeProperty: string; rawTime: string; rawId: string; textProperty: string; text: string; scanBudget: number; limit: number; timeOf: (row: E) => number; idOf: (row: E) => number },
): Promise<{ rows: E[]; next: PageKey | null }> {
  const { alias, timeProperty } = options;
  const boundRow = await scope()
    .select([`${alias}.${timeProperty}`, `${alias}.id`])
    .offset(options.scanBudget - 1)
    .limit(1)
    .getRawOne<Record<string, unknown>>();
  const bound: PageKey | null = boundRow ? { time: Number(boundRow[options.rawTime]), id: Number(boundRow[options.rawId]) } : null;
  const matches = scope().andWhere(`${alias}.${options.textProperty} LIKE :text ESCAPE '!'`, { text: containing(options.text) });
  if (bound) matches.andWhere(`(${alias}.${timeProperty} > :boundTime OR (${alias}.${timeProperty} = :boundTime AND ${alias}.id >= :boundId))`, { boundTime: bound.time, boundId: bound.id });
  const rows = await matches.limit(options.limit + 1).getMany();
  if (rows.length > options.limit) {
    const last = rows[options.limit - 1];
    return { rows: rows.slice(0, options.limit), next: { time: options.timeOf(last), id: options.idOf(last) } };
  }
  return { rows, next: bound };
}
