/**
 * Order of idempotency keys in their unique indexes (utf8mb4_bin on MySQL, bytes on SQLite: the
 * keys are ASCII, so code units order them alike): the order in which a batch writes, and so
 * locks, its keyed rows. Transactions locking keys in one order cannot deadlock on them (two
 * consoles writing the same keys in their own orders did: bench idempotency).
 */
export function collated(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
