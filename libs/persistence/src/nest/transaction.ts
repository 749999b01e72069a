import type { DataSource, EntityManager } from 'typeorm';

const queues = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` in one database transaction.
 *
 * On SQLite (better-sqlite3) TypeORM shares ONE connection and one query runner across the
 * process, so two overlapping `dataSource.transaction()` calls do not isolate each other: the
 * second becomes a SAVEPOINT inside the first, and a rollback of one can undo the other.
 * Here transactions on SQLite are queued, one at a time, per data source. On MySQL each
 * transaction gets its own pooled connection and runs concurrently as usual.
 *
 * Every writer of the process that shares a SQLite data source (console, engine in embedded
 * mode) should go through this function.
 */
export function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') {
    return dataSource.transaction(work);
  }
  const previous = queues.get(dataSource) ?? Promise.resolve();
  const result = previous.then(
    () => dataSource.transaction(work),
    () => dataSource.transaction(work),
  );
  queues.set(
    dataSource,
    result.catch(() => undefined),
  );
  return result;
}
