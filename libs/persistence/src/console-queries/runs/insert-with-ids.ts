import type { DataSource, EntityManager } from 'typeorm';
import { dialectOf, execute, executeWrite, num } from '../../engine-queries/sql';

/**
 * Runs a plain multi-row INSERT of `count` rows (a VALUES list, no ON DUPLICATE KEY or ON CONFLICT
 * clause) and answers the ids it gave them, in order, when the database gives them consecutively,
 * or null when it does not promise so (the caller reads them back):
 *
 *   INSERT INTO … VALUES (…), (…)                                  -- the caller's statement
 *   SELECT @@innodb_autoinc_lock_mode AS m, @@auto_increment_increment AS i   -- once per data source
 *
 * - MySQL / MariaDB: with innodb_autoinc_lock_mode 0 or 1 (MariaDB's default, "consecutive") a
 *   "simple insert" — its row count known in advance — takes all its ids at once under the
 *   AUTO-INC mutex: the first is the OK packet's insertId, the next each @@auto_increment_increment
 *   on. Mode 2 (MySQL 8's default, "interleaved") promises no such run: null.
 * - SQLite: one writer at a time, and each row of the statement takes the next rowid: the last is
 *   last_insert_rowid(), the others precede it.
 *
 * Why: a submission's run row is answered with its id, and the read-back by fire key cost every
 * trigger written alone one statement of its ~14 (console, engines; bench on-demand, --sql-timing).
 */
export async function insertWithIds(manager: EntityManager, sql: string, params: unknown[], count: number): Promise<number[] | null> {
  const raw = await executeWrite(manager, sql, params);
  return idsOfInsert(manager, raw, count, await consecutiveIdStep(manager));
}

/**
 * The step between the ids a plain multi-row INSERT gives its rows (SQLite: 1), or null when the
 * database does not give them consecutively: for a caller that must know its rows' ids and has no
 * other way to read them back, so inserts them one by one instead.
 */
export function consecutiveIdStep(manager: EntityManager): Promise<number | null> {
  return dialectOf(manager) === 'sqlite' ? Promise.resolve(1) : consecutiveStep(manager);
}

/** The ids of a plain INSERT's `count` rows from its answer (`raw`: the OK packet, or SQLite's last rowid), given their step; null when unknown. */
export function idsOfInsert(manager: EntityManager, raw: unknown, count: number, step: number | null): number[] | null {
  if (dialectOf(manager) === 'sqlite') {
    const last = Number(raw);
    return Number.isSafeInteger(last) && last >= count ? ids(last - count + 1, 1, count) : null;
  }
  const first = Number((raw as { insertId?: unknown } | null)?.insertId ?? 0);
  return step !== null && first > 0 ? ids(first, step, count) : null;
}

function ids(first: number, step: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i * step);
}

/** Per data source: the step between a simple insert's ids, or null when they are not consecutive (lock mode 2). */
const steps = new WeakMap<DataSource, Promise<number | null>>();

function consecutiveStep(manager: EntityManager): Promise<number | null> {
  let step = steps.get(manager.connection);
  if (!step) {
    step = execute<{ m: unknown; i: unknown }>(manager, 'SELECT @@innodb_autoinc_lock_mode AS m, @@auto_increment_increment AS i').then(
      ({ rows }) => (num(rows[0].m) <= 1 ? num(rows[0].i) : null),
      () => null,
    );
    steps.set(manager.connection, step);
  }
  return step;
}
