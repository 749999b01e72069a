import type { DataSource, EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { isTransientLockError } from '../errors';
import { Riders, ridersOf, useRiders } from '../engine-queries/riders';

/** Runs of a MySQL transaction that InnoDB rolled back for a deadlock or lock wait, before giving up. */
export const TRANSACTION_ATTEMPTS = 4;

const queues = new WeakMap<DataSource, Promise<unknown>>();

/** The hooks of each transaction inTransaction is running, by its EntityManager: as its COMMIT leaves (`committing`), once it has committed (`committed`). */
const commitHooks = new WeakMap<EntityManager, { committing: Array<() => void>; committed: Array<() => void> }>();

/**
 * Runs `hook` once the transaction of `manager` has committed — never if it rolls back (a retried
 * attempt starts with no hooks). For what must not be seen before the rows it announces are
 * visible to other connections: a wake-up that makes an engine claim a run this transaction
 * inserts would otherwise race its commit, find nothing and wait for the next poll. Outside a
 * transaction made by inTransaction (an autocommitted manager), `hook` runs at once.
 */
export function afterCommit(manager: EntityManager, hook: () => void): void {
  const hooks = commitHooks.get(manager);
  if (hooks) hooks.committed.push(hook);
  else hook();
}

/**
 * Runs `hook` as the transaction of `manager` sends its COMMIT, before the answer — never if its
 * work fails first; the COMMIT itself may still fail after it. For a message whose receiver acts on
 * this transaction's rows only through writes that wait for its row locks: an engine's DISPATCHED
 * mark of a run the transaction inserted waits for the commit and finds the run only if it
 * committed, so the wake-up naming it need not wait for the commit's round trip (a read would see
 * nothing yet: the wake-up carries the rows). On SQLite (one shared connection: a write there
 * would join the transaction) and outside a transaction of inTransaction, as afterCommit.
 */
export function whenCommitting(manager: EntityManager, hook: () => void): void {
  const hooks = commitHooks.get(manager);
  if (!hooks) hook();
  else if (ridersOf(manager)) hooks.committing.push(hook);
  else hooks.committed.push(hook);
}

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
 *
 * `options.isolation` sets the isolation level of this one transaction on MySQL/MariaDB (the
 * engine's claims use READ COMMITTED: no gap locks, so a claim never blocks the planner's
 * inserts). SQLite ignores it: its transactions are serializable, and here one at a time anyway.
 *
 * On MySQL a transaction that InnoDB rolled back for a deadlock or a lock wait timeout is run
 * again (up to TRANSACTION_ATTEMPTS times, after a few random milliseconds): InnoDB expects
 * exactly that, and every writer here is a retryable unit — guarded updates and inserts that
 * were undone as a whole. `work` must keep its side effects inside the transaction (or be
 * harmless to repeat: the alarm relay's re-publish carries the same alarm id).
 */
export function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  options: { isolation?: IsolationLevel } = {},
): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') return retryingLockErrors(() => withCommitHooks(dataSource, work, options.isolation));
  const attempt = () => withCommitHooks(dataSource, work, undefined);
  const previous = queues.get(dataSource) ?? Promise.resolve();
  const result = previous.then(attempt, attempt);
  queues.set(
    dataSource,
    result.catch(() => undefined),
  );
  return result;
}

/** One transaction, then the afterCommit hooks its work registered (only once it has committed). */
async function withCommitHooks<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>, isolation: IsolationLevel | undefined): Promise<T> {
  const hooks = { committing: [] as Array<() => void>, committed: [] as Array<() => void> };
  const registered = (manager: EntityManager) => {
    commitHooks.set(manager, hooks);
    return work(manager).finally(() => commitHooks.delete(manager));
  };
  const sqlite = dataSource.options.type === 'better-sqlite3' || dataSource.options.type === 'sqlite';
  const result = sqlite ? await dataSource.transaction(registered) : await withRiders(dataSource, registered, isolation, () => runHooks(hooks.committing, 'a whenCommitting'));
  runHooks(hooks.committed, 'an afterCommit');
  return result;
}

/** Each hook, a failing one warned about: the transaction goes on (or has committed) whatever a hook does. */
function runHooks(hooks: ReadonlyArray<() => void>, kind: string): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      process.emitWarning(`${kind} hook failed: ${(err as Error).stack ?? String(err)}`);
    }
  }
}

/**
 * A MySQL/MariaDB transaction whose opening rides with its first statement and whose deferred
 * writes ride with the next statement or the COMMIT (riders.ts): TypeORM's own transaction sends
 * START TRANSACTION and each statement alone. The query runner is marked in a transaction, so
 * TypeORM's own writes (save, insert) inside `work` do not open one of their own, and its
 * transaction events reach the data source's subscribers as TypeORM's own transaction sends them.
 */
async function withRiders<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>, isolation: IsolationLevel | undefined, committing: () => void): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const riders = new Riders(runner, isolation ? [`SET TRANSACTION ISOLATION LEVEL ${isolation}`, 'START TRANSACTION'] : ['START TRANSACTION']);
  const typeorm = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  useRiders(runner.manager, riders);
  try {
    await runner.broadcaster.broadcast('BeforeTransactionStart');
    typeorm.isTransactionActive = true;
    typeorm.transactionDepth = 1;
    await runner.broadcaster.broadcast('AfterTransactionStart');
    const result = await work(runner.manager);
    await runner.broadcaster.broadcast('BeforeTransactionCommit');
    const commit = riders.commit();
    committing();
    await commit;
    typeorm.isTransactionActive = false;
    await runner.broadcaster.broadcast('AfterTransactionCommit');
    return result;
  } catch (err) {
    if (typeorm.isTransactionActive) {
      try {
        await runner.broadcaster.broadcast('BeforeTransactionRollback');
        await riders.rollback();
        typeorm.isTransactionActive = false;
        await runner.broadcaster.broadcast('AfterTransactionRollback');
      } catch {
        // The connection is gone or the server rolled back already: the original error says why.
      }
    }
    throw err;
  } finally {
    typeorm.isTransactionActive = false;
    typeorm.transactionDepth = 0;
    useRiders(runner.manager, null);
    await runner.release();
  }
}

/**
 * Runs `statement` — ONE writing statement, which needs no transaction around it — as its own
 * transaction. On MySQL/MariaDB that is a pooled connection in autocommit mode: the statement is
 * committed (durable, with InnoDB's default flush at commit) before its answer comes back, so a
 * caller acts on a committed write exactly as after inTransaction — for 1 round trip instead of
 * 3 (START TRANSACTION, the statement, COMMIT), which in a burst were most of the dispatcher's
 * statements. A deadlock or lock wait is retried as inTransaction does. On SQLite it goes through
 * inTransaction's queue: the one shared connection must not run it inside another caller's
 * transaction.
 *
 * Only for a single WRITING statement (reads after it are fine): a second write in `statement`
 * would be a second transaction, and a failure between the two would leave the first committed.
 * And only where a commit whose answer is lost is harmless: a server killed mid-statement can
 * commit it and answer nothing (the DISPATCHED mark, once autocommitted, stranded 44 runs in
 * test/ha), so the caller must not act as if it had failed.
 */
export function autocommitted<T>(dataSource: DataSource, statement: (manager: EntityManager) => Promise<T>): Promise<T> {
  if (dataSource.options.type === 'better-sqlite3' || dataSource.options.type === 'sqlite') return inTransaction(dataSource, statement);
  return retryingLockErrors(() => statement(dataSource.manager));
}

async function retryingLockErrors<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransientLockError(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, lockRetryDelayMs(attempt, Math.random())));
    }
  }
}

/**
 * How long to wait before attempt `attempt + 1` after a deadlock or lock wait: a random part of
 * 10, 30, 90 ms (at most 130 ms in all). A wait that grew by 10 ms an attempt let a pause of a task
 * firing every 100 ms conflict with the engine's fires in all four attempts on a loaded machine
 * (load ~30) and answer 503; retries spread wider are less likely to meet the other writer again.
 */
export function lockRetryDelayMs(attempt: number, random: number): number {
  return random * 10 * 3 ** (attempt - 1);
}
