/**
 * True when `err` is a unique-key (or primary-key) violation, on either database:
 * MySQL/MariaDB `ER_DUP_ENTRY` (errno 1062) or SQLite `SQLITE_CONSTRAINT_UNIQUE` /
 * `SQLITE_CONSTRAINT_PRIMARYKEY`. Accepts TypeORM's QueryFailedError (which carries the
 * driver's error as `driverError`) or a raw driver error.
 *
 * The engine relies on it: a second insert of the same (task, fire key) run is how a duplicate
 * fire is refused, and that refusal is an expected outcome, not a failure.
 */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown };
    if (code === 'ER_DUP_ENTRY' || errno === 1062) return true;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
    const next = e as { driverError?: unknown; cause?: unknown };
    e = next.driverError ?? next.cause;
  }
  return false;
}

/**
 * True when `err` is InnoDB giving up on a lock — a deadlock (`ER_LOCK_DEADLOCK`, 1213: it
 * rolled this transaction back), a lock wait timeout (`ER_LOCK_WAIT_TIMEOUT`, 1205), or either of
 * them met on a table's AUTO-INC lock, which MariaDB reports as `ER_AUTOINC_READ_FAILED` (1467,
 * "Failed to read auto-increment value from storage engine"; the deadlock's transaction is rolled
 * back too: MDEV-33593). An INSERT … SELECT takes that lock for its statement (run_attempts'
 * copy of an ending attempt), which a tenant's storm of failing runs retried at once kept meeting.
 * All are transient under concurrency (engines starting together, claims racing planner
 * inserts): the whole transaction may simply be run again.
 */
export function isTransientLockError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown };
    if (code === 'ER_LOCK_DEADLOCK' || errno === 1213 || code === 'ER_LOCK_WAIT_TIMEOUT' || errno === 1205) return true;
    if (code === 'ER_AUTOINC_READ_FAILED' || errno === 1467) return true;
    const next = e as { driverError?: unknown; cause?: unknown };
    e = next.driverError ?? next.cause;
  }
  return false;
}

/** What a request met with the database unusable is answered (503 UNAVAILABLE; databaseUnavailableMessage). */
export const DATABASE_UNREACHABLE = 'the database is unreachable; try again shortly';
const DATABASE_CLOSED = 'this server has closed its database connections (it is shutting down); send it to another, or try again shortly';
const DATABASE_LOCKED = 'the database is locked by another process; try again shortly';

/** Seconds a client is told to wait (Retry-After) before sending again a request that met the database unusable: a restart or a failover takes seconds. */
export const DATABASE_RETRY_AFTER_S = 5;

/** Driver codes of a connection that could not be made or was lost, or of a server refusing sessions (too many, shutting down, this one killed). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED']);
/** The server errors among them, by number (1040 too many connections, 1053 shutting down, 1927 connection killed). */
const UNREACHABLE_ERRNOS = new Set([1040, 1053, 1927]);
/** What a pool or driver this process closed says (the data source destroyed while requests were still answered). */
const CLOSED_MESSAGES = [/^Pool is closed\.$/, /^Connection is not established with \w+ database$/, /^The database connection is not open$/];

/**
 * The answer to a request that failed because the database cannot be used at all just now — not
 * because of what its statement did — or null. One rule for every HTTP answer (the console's and
 * the engines' exception filters answer it 503 UNAVAILABLE with Retry-After: DATABASE_RETRY_AFTER_S,
 * so clients and executors send again; a 500 would say the request itself went wrong):
 * - the connection could not be made or was lost (mysql2's ECONNREFUSED, ETIMEDOUT,
 *   PROTOCOL_CONNECTION_LOST, …, and any error it marks `fatal`: "Can't add new command when
 *   connection is in closed state"), or the server refuses sessions (UNREACHABLE_CODES);
 * - this process closed its pool (shutting down): mysql2's "Pool is closed.", TypeORM's
 *   "Connection is not established with mysql database", better-sqlite3's "The database
 *   connection is not open";
 * - SQLite still locked by another process past its busy timeout (SQLITE_BUSY).
 * Accepts TypeORM's QueryFailedError (the driver's error as `driverError`) or a raw driver error.
 */
export function databaseUnavailableMessage(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, errno, fatal, message } = e as { code?: unknown; errno?: unknown; fatal?: unknown; message?: unknown };
    if ((typeof code === 'string' && UNREACHABLE_CODES.has(code)) || (typeof errno === 'number' && UNREACHABLE_ERRNOS.has(errno)) || fatal === true) return DATABASE_UNREACHABLE;
    if (typeof message === 'string' && CLOSED_MESSAGES.some((m) => m.test(message))) return DATABASE_CLOSED;
    if (code === 'SQLITE_BUSY') return DATABASE_LOCKED;
    const next = e as { driverError?: unknown; cause?: unknown };
    e = next.driverError ?? next.cause;
  }
  return null;
}
