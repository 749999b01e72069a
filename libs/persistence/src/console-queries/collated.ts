/**
 * Order of idempotency keys in their unique indexes (utf8mb4_unicode_ci folds case): the order in
 * which a batch writes, and so locks, its keyed rows. Every transaction locking keys in one order
 * cannot deadlock on them with another (two consoles writing the same keys did, bench idempotency).
 */
export function collated(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
