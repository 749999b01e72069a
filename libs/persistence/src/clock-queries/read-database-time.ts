import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num } from '../engine-queries/sql';

/**
 * The database server's clock, epoch ms: the one time the engines and consoles of a cluster
 * share, which each measures its own clock against (ClockWatch; issue 39 item 2).
 *
 *   MariaDB: SELECT ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS now_ms
 *   SQLite:  SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) AS now_ms
 *
 * NOW(3): milliseconds (NOW() has whole seconds); UNIX_TIMESTAMP counts from the epoch in UTC
 * whatever the session's time zone. SQLite's julianday('now') is the machine's clock to the
 * millisecond — embedded, the engine and the database share a machine and the offset is ~0.
 */
export async function readDatabaseTime(manager: EntityManager): Promise<number> {
  const sql =
    dialectOf(manager) === 'mysql'
      ? 'SELECT ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS now_ms'
      : "SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) AS now_ms";
  const { rows } = await execute<{ now_ms: unknown }>(manager, sql, []);
  return num(rows[0].now_ms);
}
