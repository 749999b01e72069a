/**
 * A MySQL/MariaDB transaction's opening statements (`SET TRANSACTION ISOLATION LEVEL …`, `START
 * TRANSACTION`, as TypeORM sends them) go to the server with the transaction's first statement,
 * in one packet (`START TRANSACTION; SELECT …`), instead of a round trip each. They answer nothing
 * a caller reads, and nothing of the transaction reaches the server before its first statement
 * anyway. A transaction that ends before any statement (COMMIT or ROLLBACK next) sends nothing.
 *
 * Why: a round trip costs both processes a system call and a wake-up, and on the benchmark's
 * 2-core machine those are most of a statement's price. A submission's transaction was 5 round
 * trips (START, share lock, INSERT, audit INSERT, COMMIT), an engine's claim turn 6: measured with
 * single triggers, alternating in one window (`on-demand --series=single --rates=250,1000`):
 * 1,000/s offered started 464 and 441 runs/s against 426 and 393 before, CPU a run 3.51 / 3.65
 * ms against 3.79 / 4.07, start p50 at 250/s 135 / 155 ms against 199 / 349 ms.
 *
 * What it takes: the pool's connections allow several statements a packet (`multipleStatements`,
 * dataSourceOptions). Every statement Baton sends is parameterised (mysql2 escapes the values
 * into it), so no value can add a statement; only this module joins statements.
 *
 * A connection going back to the pool drops what it holds (TypeORM always ends its transactions;
 * a hold left over would otherwise open one around the next user's statement).
 */

/** The mysql2 connection surface TypeORM uses. */
export interface PooledConnection {
  query(sql: unknown, values?: unknown, callback?: QueryCallback): unknown;
  release(): void;
}

type QueryCallback = (err: unknown, results?: unknown, fields?: unknown) => void;

/** The answer of a statement that was held: what the server answers a START (an OK packet). */
const HELD_OK = Object.freeze({ fieldCount: 0, affectedRows: 0, insertId: 0, info: '', serverStatus: 0, warningStatus: 0, changedRows: 0 });

const OPENING = /^(START TRANSACTION|SET TRANSACTION ISOLATION LEVEL [A-Z ]+)$/;
const ENDING = /^(COMMIT|ROLLBACK)$/;
const MERGING = Symbol('baton.mergedTransactionStart');

/** Makes `connection` hold a transaction's opening statements until its first statement (once per connection). */
export function mergeTransactionStart(connection: PooledConnection): void {
  const marked = connection as PooledConnection & { [MERGING]?: true };
  if (marked[MERGING]) return;
  marked[MERGING] = true;
  const query = connection.query.bind(connection);
  const release = connection.release.bind(connection);
  let held: string[] = [];
  connection.query = (sql: unknown, values?: unknown, callback?: QueryCallback) => {
    if (typeof values === 'function') return connection.query(sql, undefined, values as QueryCallback);
    const text = typeof sql === 'string' ? sql : (sql as { sql?: unknown } | null)?.sql;
    if (typeof text !== 'string' || typeof callback !== 'function') {
      // A stream, or a shape not TypeORM's: what is held goes first, on its own.
      if (held.length > 0) query(held.splice(0).join('; '), undefined, () => undefined);
      return query(sql, values, callback);
    }
    if (OPENING.test(text)) {
      held.push(text);
      process.nextTick(callback, null, HELD_OK, undefined);
      return undefined;
    }
    if (held.length === 0) return query(sql, values, callback);
    const opening = held.splice(0);
    if (ENDING.test(text)) {
      process.nextTick(callback, null, HELD_OK, undefined);
      return undefined;
    }
    const merged = `${opening.join('; ')}; ${text}`;
    return query(typeof sql === 'string' ? merged : { ...(sql as object), sql: merged }, values, (err, results, fields) => {
      if (err) return callback(err);
      // One result (and field list) per statement: the caller's is the last.
      callback(null, (results as unknown[])[opening.length], Array.isArray(fields) ? fields[opening.length] : fields);
    });
  };
  connection.release = () => {
    held = [];
    release();
  };
}

/** Every connection `pool` hands out holds its transactions' opening statements (mergeTransactionStart). */
export function mergeTransactionStarts(pool: { getConnection(callback: (err: unknown, connection: PooledConnection) => void): void }): void {
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) =>
    getConnection((err, connection) => {
      if (!err) mergeTransactionStart(connection);
      callback(err, connection);
    });
}
