import type { DataSource } from 'typeorm';

/**
 * What the scale scenario asks MariaDB about one case's database: rows read per table (the
 * server's user statistics), the plans of the planner's and the claimer's queries as run, and
 * the database's size.
 */

/** Turns on MariaDB's per-table row counters (information_schema.TABLE_STATISTICS); returns the undo. */
export async function enableUserStats(ds: DataSource): Promise<() => Promise<void>> {
  const [{ Value: was }]: Array<{ Value: string }> = await ds.query("SHOW GLOBAL VARIABLES LIKE 'userstat'");
  await ds.query('SET GLOBAL userstat = 1');
  return async () => {
    if (was !== 'ON') await ds.query('SET GLOBAL userstat = 0');
  };
}

/** Rows read so far from each table of this database (cumulative, server-wide counters). */
export async function rowsRead(ds: DataSource): Promise<Record<string, number>> {
  const rows: Array<{ TABLE_NAME: string; ROWS_READ: number | string }> = await ds.query('SELECT TABLE_NAME, ROWS_READ FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = DATABASE()');
  return Object.fromEntries(rows.map((r) => [r.TABLE_NAME, Number(r.ROWS_READ)]));
}

export interface QueryPlan {
  /** EXPLAIN: index chosen, access type, estimated rows, Extra. */
  key: string | null;
  type: string;
  estimatedRows: number;
  extra: string;
  /** ANALYZE (the statement executed): rows the table access really read, and its time. */
  rowsExamined: number;
  rowsReturned: number;
  /** Median of 20 executions, ms (bench → MariaDB round trip included). */
  medianMs: number;
}

/**
 * EXPLAINs, ANALYZEs and times a locking SELECT in a transaction that is rolled back, so
 * nothing stays locked. MariaDB's `ANALYZE FORMAT=JSON` runs the statement and reports r_rows,
 * the rows the table access actually read — what must not grow with the number of tasks.
 */
export async function queryPlan(ds: DataSource, sql: string, params: unknown[]): Promise<QueryPlan> {
  const qr = ds.createQueryRunner();
  await qr.connect();
  await qr.startTransaction('READ COMMITTED');
  try {
    const [e]: Array<{ key: string | null; type: string; rows: number | string; Extra: string | null }> = await qr.query(`EXPLAIN ${sql}`, params);
    const [analyzed]: Array<Record<string, string>> = await qr.query(`ANALYZE FORMAT=JSON ${sql}`, params);
    const access = tableAccess(JSON.parse(Object.values(analyzed)[0]));
    const times: number[] = [];
    let returned = 0;
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      returned = ((await qr.query(sql, params)) as unknown[]).length;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { key: e.key, type: e.type, estimatedRows: Number(e.rows), extra: e.Extra ?? '', rowsExamined: Number(access?.r_rows ?? 0), rowsReturned: returned, medianMs: +times[10].toFixed(2) };
  } finally {
    await qr.rollbackTransaction();
    await qr.release();
  }
}

/** The first `table` object of an ANALYZE FORMAT=JSON tree (single-table statements). */
function tableAccess(node: unknown): Record<string, unknown> | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const o = node as Record<string, unknown>;
  if (typeof o.table_name === 'string') return o;
  for (const v of Object.values(o)) {
    const found = tableAccess(v);
    if (found) return found;
  }
  return undefined;
}

export interface DatabaseSize {
  /** Every table of the database: data + indexes, MB (InnoDB statistics, refreshed by ANALYZE TABLE first). */
  totalMb: number;
  tasksMb: number;
  runsMb: number;
  tasks: number;
  runs: number;
  /** innodb_buffer_pool_size, MB: the tasks table outgrows it near 1M definitions. */
  bufferPoolMb: number;
}

export async function databaseSize(ds: DataSource): Promise<DatabaseSize> {
  await ds.query('ANALYZE TABLE tasks, runs');
  const tables: Array<{ TABLE_NAME: string; bytes: number | string }> = await ds.query(
    'SELECT TABLE_NAME, DATA_LENGTH + INDEX_LENGTH AS bytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
  );
  const mb = (name?: string) => +(tables.filter((t) => !name || t.TABLE_NAME === name).reduce((a, t) => a + Number(t.bytes), 0) / 2 ** 20).toFixed(1);
  const [{ tasks }]: Array<{ tasks: number | string }> = await ds.query('SELECT COUNT(*) AS tasks FROM tasks');
  const [{ runs }]: Array<{ runs: number | string }> = await ds.query('SELECT COUNT(*) AS runs FROM runs');
  const [{ Value: pool }]: Array<{ Value: string }> = await ds.query("SHOW GLOBAL VARIABLES LIKE 'innodb_buffer_pool_size'");
  return { totalMb: mb(), tasksMb: mb('tasks'), runsMb: mb('runs'), tasks: Number(tasks), runs: Number(runs), bufferPoolMb: Number(pool) / 2 ** 20 };
}
