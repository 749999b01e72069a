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
  return Array.from({ length: n }, () => '?').join(', ');
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

/**
 * `CASE id WHEN ? THEN ? … END` and its parameters: one value per row in a multi-row UPDATE
 * (`SET x = CASE id …` over `WHERE id IN (…)`), on MySQL and SQLite alike.
 */
export function caseById<R>(rows: readonly R[], id: (row: R) => number, value: (row: R) => unknown): { sql: string; params: unknown[] } {
  return { sql: `CASE id ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END`, params: rows.flatMap((r) => [id(r), value(r)]) };
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
