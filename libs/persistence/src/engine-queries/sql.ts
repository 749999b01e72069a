import type { EntityManager } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';

/**
 * Helpers shared by the engine's queries. Each query of the engine lives in its own file, in the
 * folder of its aggregate below this one (runs/, tasks/, alarms/, …), with its SQL in plain sight
 * (graphile-worker style): what runs against the database is readable in one place,
 * EXPLAIN-able, and measured in engine-queries/*.spec.ts.
 */

/** The two SQL dialects Baton speaks: MySQL/MariaDB (cluster) and SQLite (embedded). */
export type Dialect = 'mysql' | 'sqlite';

export function dialectOf(manager: EntityManager): Dialect {
  const type = manager.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite' ? 'sqlite' : 'mysql';
}

/**
 * The row-locking suffix of a claim. MySQL 8 / MariaDB ≥ 10.6: lock the rows read and skip
 * rows another transaction has locked, so concurrent engines get disjoint rows without waiting.
 * SQLite has no row locks: embedded mode runs one engine, and its transactions are serialised
 * (inTransaction), so a plain transaction is already exclusive.
 */
export function skipLocked(dialect: Dialect): string {
  return dialect === 'mysql' ? 'FOR UPDATE SKIP LOCKED' : '';
}

/** `?, ?, ?` for n values. */
export function placeholders(n: number): string {
  return n > 0 ? '?, '.repeat(n - 1) + '?' : '';
}

export interface SqlResult<R> {
  rows: R[];
  /** Rows matched by an UPDATE/DELETE (mysql2 connects with CLIENT_FOUND_ROWS) or inserted. */
  affected: number;
}

/**
 * Runs one statement on the manager's query runner (the transaction's, when inside one) and
 * returns rows and affected count the same way on both drivers. (EntityManager.query returns
 * the driver's raw result, which differs: an array on SELECT, an OkPacket or a rowid otherwise.)
 */
export async function execute<R = Record<string, unknown>>(manager: EntityManager, sql: string, params: unknown[] = []): Promise<SqlResult<R>> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, params, true)) as QueryResult<R>;
    return { rows: result.records ?? [], affected: result.affected ?? 0 };
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/** One write, sent at once, answered with the driver's own answer (MySQL's OK packet: insertId, affectedRows; SQLite: the last rowid). */
export async function executeWrite(manager: EntityManager, sql: string, params: unknown[] = []): Promise<unknown> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    return ((await runner.query(sql, params, true)) as QueryResult).raw;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/**
 * One value per row in a multi-row UPDATE (`SET x = <this>` over `WHERE id IN (…)` of the same
 * rows), on MySQL and SQLite alike, with its parameters. The rows of a batch mostly share their
 * values (one attempt, one deadline, one ack time for the runs of a burst), and every parameter
 * costs the engine escaping and the server parsing, so the text is the smallest that says it:
 * - every row the same value: `?`;
 * - few distinct values: `CASE WHEN id IN (…) THEN ? … END`, one branch per value;
 * - else `CASE id WHEN ? THEN ? … END`, one branch per row.
 * A row listed twice takes its first value in every form (as CASE's first matching branch).
 * Only for an UPDATE/SELECT whose rows are exactly these: `?` gives any other row the value too.
 */
export function caseById<R>(rows: readonly R[], id: (row: R) => number, value: (row: R) => unknown): { sql: string; params: unknown[] } {
  if (rows.length === 0) return { sql: 'NULL', params: [] };
  const first = value(rows[0]);
  let same = true;
  for (let i = 1; i < rows.length && same; i++) same = value(rows[i]) === first;
  if (same) return { sql: '?', params: [first] };
  const groups = new Map<unknown, number[]>();
  const seen = new Set<number>();
  for (const row of rows) {
    const key = id(row);
    if (seen.has(key)) continue;
    seen.add(key);
    const v = value(row);
    const ids = groups.get(v);
    if (ids) ids.push(key);
    else groups.set(v, [key]);
  }
  const params: unknown[] = [];
  const parts: string[] = [];
  const byValue = groups.size * 2 <= seen.size;
  if (byValue) {
    for (const [v, ids] of groups) {
      parts.push(`WHEN id IN (${placeholders(ids.length)}) THEN ?`);
      for (const key of ids) params.push(key);
      params.push(v);
    }
  } else {
    for (const [v, ids] of groups) {
      for (const key of ids) {
        parts.push('WHEN ? THEN ?');
        params.push(key, v);
      }
    }
  }
  return { sql: `CASE ${byValue ? '' : 'id '}${parts.join(' ')} END`, params };
}

/** mysql2 returns BIGINT as number (supportBigNumbers, no bigNumberStrings) but be safe with strings. */
export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}

/** Rows per multi-row statement: keeps packets and SQLite's 32 766 bound parameters in check. */
export const MAX_ROWS_PER_STATEMENT = 500;

export function chunks<T>(items: readonly T[], size = MAX_ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
