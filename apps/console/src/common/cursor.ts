import { badRequest } from './api-error';

/**
 * Opaque keyset cursors for lists ordered by (time desc, id desc): the cursor is the
 * (time, id) of the last row served, base64url-encoded.
 */
export function encodeCursor(time: number, id: number): string {
  return Buffer.from(JSON.stringify([time, id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, field = 'cursor'): { time: number; id: number } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => typeof v === 'number' && Number.isSafeInteger(v))
    ) {
      return { time: value[0] as number, id: value[1] as number };
    }
  } catch {
    // fall through
  }
  throw badRequest([{ field, reason: 'not a cursor returned by this API' }]);
}

/** Opaque cursors for lists ordered by a string key (tenant ids): the last key served, base64url-encoded. */
export function encodeKeyCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeKeyCursor(cursor: string, field = 'cursor'): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (key === '' || encodeKeyCursor(key) !== cursor) throw badRequest([{ field, reason: 'not a cursor returned by this API' }]);
  return key;
}

/** Default and maximum page sizes. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` to get the next page; null when this page is the last. */
  nextCursor: string | null;
}
