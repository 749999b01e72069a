import { describe, expect, it } from 'vitest';
import { mergeTransactionStart, type PooledConnection } from './merged-transaction-start';

/** A connection that records what reaches the server and answers each statement of a packet. */
function fakeConnection(answer: (statement: string) => unknown = () => ({ affectedRows: 0 })) {
  const sent: string[] = [];
  let released = 0;
  const connection: PooledConnection = {
    query(sql: unknown, values?: unknown, callback?: (err: unknown, results?: unknown, fields?: unknown) => void) {
      const text = typeof sql === 'string' ? sql : (sql as { sql: string }).sql;
      sent.push(text);
      const statements = text.split('; ');
      const results = statements.map(answer);
      const failed = results.find((r) => r instanceof Error);
      if (callback) process.nextTick(() => (failed ? callback(failed) : statements.length === 1 ? callback(null, results[0], ['f']) : callback(null, results, statements.map((s) => [`f:${s}`]))));
      return { sql: text };
    },
    release() {
      released++;
    },
  };
  mergeTransactionStart(connection);
  const run = (sql: unknown) =>
    new Promise<{ results: unknown; fields: unknown }>((resolve, reject) => connection.query(sql, [], (err, results, fields) => (err ? reject(err) : resolve({ results, fields }))));
  return { connection, sent, run, released: () => released };
}

describe('a transaction’s opening statements go with its first statement', () => {
  it('sends START TRANSACTION with the next statement, and answers each caller with its own result', async () => {
    const c = fakeConnection((s) => (s.startsWith('SELECT') ? [{ n: 1 }] : { affectedRows: 0 }));
    const start = await c.run('START TRANSACTION');
    expect(start.results).toMatchObject({ affectedRows: 0 });
    expect(c.sent).toEqual([]);
    const select = await c.run({ sql: 'SELECT n FROM t', timeout: undefined });
    expect(c.sent).toEqual(['START TRANSACTION; SELECT n FROM t']);
    expect(select).toEqual({ results: [{ n: 1 }], fields: ['f:SELECT n FROM t'] });
    await c.run('INSERT INTO t VALUES (1)');
    await c.run('COMMIT');
    expect(c.sent).toEqual(['START TRANSACTION; SELECT n FROM t', 'INSERT INTO t VALUES (1)', 'COMMIT']);
  });

  it('sends the isolation level, the START and the first statement as one packet, in that order', async () => {
    const c = fakeConnection();
    await c.run('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await c.run('START TRANSACTION');
    await c.run('UPDATE t SET n = 2');
    expect(c.sent).toEqual(['SET TRANSACTION ISOLATION LEVEL READ COMMITTED; START TRANSACTION; UPDATE t SET n = 2']);
  });

  it('sends nothing for a transaction that ends before any statement', async () => {
    const c = fakeConnection();
    await c.run('START TRANSACTION');
    await c.run('ROLLBACK');
    await c.run('START TRANSACTION');
    await c.run('COMMIT');
    expect(c.sent).toEqual([]);
    await c.run('SELECT 1');
    expect(c.sent).toEqual(['SELECT 1']);
  });

  it('hands the merged packet’s error to the statement that carried it', async () => {
    const c = fakeConnection((s) => (s.startsWith('INSERT') ? new Error('ER_DUP_ENTRY') : { affectedRows: 0 }));
    await c.run('START TRANSACTION');
    await expect(c.run('INSERT INTO t VALUES (1)')).rejects.toThrow('ER_DUP_ENTRY');
    await c.run('ROLLBACK');
    expect(c.sent).toEqual(['START TRANSACTION; INSERT INTO t VALUES (1)', 'ROLLBACK']);
  });

  it('drops what it holds when the connection goes back to the pool: the next user’s statement is not put in a transaction', async () => {
    const c = fakeConnection();
    await c.run('START TRANSACTION');
    c.connection.release();
    expect(c.released()).toBe(1);
    await c.run('UPDATE t SET n = 3');
    expect(c.sent).toEqual(['UPDATE t SET n = 3']);
  });

  it('sends what it holds first, on its own, before a statement without a callback (a stream)', () => {
    const c = fakeConnection();
    c.connection.query('START TRANSACTION', [], () => undefined);
    c.connection.query('SELECT * FROM t');
    expect(c.sent).toEqual(['START TRANSACTION', 'SELECT * FROM t']);
  });

  it('wraps a connection once however often the pool hands it out', async () => {
    const c = fakeConnection();
    mergeTransactionStart(c.connection);
    await c.run('START TRANSACTION');
    await c.run('SELECT 1');
    expect(c.sent).toEqual(['START TRANSACTION; SELECT 1']);
  });
});
