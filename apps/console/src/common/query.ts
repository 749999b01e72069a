import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { PageKey } from '@baton/persistence';
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

/**
 * An optional integer query parameter. Each rule says its own reason without the field's name
 * (the error names it): `must be an integer`, `must be at least 1`.
 */
export function IntQuery(description: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return applyDecorators(ApiPropertyOptional({ type: Number, description }), IsOptional(), ...integerRules('an integer', min, max));
}

/** A query parameter that is an instant, epoch ms (`from`, `to`): optional unless `required`. */
export function InstantQuery(description: string, options: { min?: number; required?: boolean } = {}) {
  const { min = Number.MIN_SAFE_INTEGER, required = false } = options;
  return applyDecorators(
    ...(required ? [ApiProperty({ type: Number, description }), IsDefined()] : [ApiPropertyOptional({ type: Number, description }), IsOptional()]),
    ...integerRules('an integer instant (epoch ms)', min, Number.MAX_SAFE_INTEGER),
  );
}

function integerRules(kind: string, min: number, max: number): PropertyDecorator[] {
  return [ToInt(), IsInt({ message: `must be ${kind}` }), Min(min, { message: `must be at least ${min}` }), Max(max, { message: `must be at most ${max}` })];
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
 * A keyset page on (time desc, id desc): `read` is the list's named query, asked for `limit + 1`
 * rows after the cursor's position (the extra row says whether there is a next page).
 */
export async function keysetPage<E, V>(
  read: (page: { after: PageKey | null; limit: number }) => Promise<E[]>,
  options: { timeOf: (row: E) => number; idOf: (row: E) => number; cursor?: string; limit?: number },
  view: (rows: E[]) => V[] | Promise<V[]>,
): Promise<Page<V>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await read({ after: options.cursor === undefined ? null : decodeCursor(options.cursor), limit });
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    items: await view(page),
    nextCursor: more && last ? encodeCursor(options.timeOf(last), options.idOf(last)) : null,
  };
}
