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
