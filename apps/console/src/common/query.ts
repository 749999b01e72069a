import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { canonicalInteger } from './id.pipe';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, Page } from './cursor';

/** Query strings are strings: `"42"` → 42; anything but a canonical integer (see canonicalInteger) stays as is and fails @IsInt. */
export const ToInt = () => Transform(({ value }) => canonicalInteger(value) ?? value);

/** `"true"`/`"1"` → true, `"false"`/`"0"` → false; anything else stays and fails @IsBoolean. */
export const ToBoolean = () =>
  Transform(({ value }) => {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return value;
  });

/** `state=A,B` and `state=A&state=B` both become ['A', 'B']. */
export const ToList = () =>
  Transform(({ value }) => {
    if (value === undefined || value === null) return value;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
    return parts.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
  });

/** An optional integer query parameter. */
export function IntQuery(description: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return applyDecorators(
    ApiPropertyOptional({ type: Number, description }),
    IsOptional(),
    ToInt(),
    IsInt(),
    Min(min),
    Max(max),
  );
}

/** `cursor` and `limit`, for keyset-paginated lists. */
export class PageQuery {
  @ApiPropertyOptional({ description: 'Opaque cursor: the `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @IntQuery(`Page size, 1-${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, 1, MAX_PAGE_SIZE)
  limit?: number;
}

/**
 * Keyset pagination on (time desc, id desc): filters the query to rows after the cursor,
 * orders, fetches one extra row to know whether there is a next page.
 *
 * Given several queries (disjoint parts of one list, e.g. one per state of a filter), each is
 * read the same way and the pages merged: with an index per part that holds the order, every
 * part is a range that stops at the page, where one `IN (…)` query would sort all its matches.
 */
export async function keysetPage<E extends ObjectLiteral, V>(
  queries: SelectQueryBuilder<E> | ReadonlyArray<SelectQueryBuilder<E>>,
  options: { alias: string; timeProperty: string; timeOf: (row: E) => number; idOf: (row: E) => number; cursor?: string; limit?: number },
  view: (rows: E[]) => V[] | Promise<V[]>,
): Promise<Page<V>> {
  const { alias, timeProperty } = options;
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  const parts = await Promise.all(
    (Array.isArray(queries) ? queries : [queries]).map((qb: SelectQueryBuilder<E>) => {
      if (after) {
        qb.andWhere(`(${alias}.${timeProperty} < :cursorTime OR (${alias}.${timeProperty} = :cursorTime AND ${alias}.id < :cursorId))`, { cursorTime: after.time, cursorId: after.id });
      }
      return qb
        .orderBy(`${alias}.${timeProperty}`, 'DESC')
        .addOrderBy(`${alias}.id`, 'DESC')
        .take(limit + 1)
        .getMany();
    }),
  );
  const rows = parts.length === 1 ? parts[0] : parts.flat().sort((a, b) => options.timeOf(b) - options.timeOf(a) || options.idOf(b) - options.idOf(a));
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    items: await view(page),
    nextCursor: more && last ? encodeCursor(options.timeOf(last), options.idOf(last)) : null,
  };
}
