import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createPool } from 'mysql2';
import { DataSource, QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { databaseUnavailableMessage, DATABASE_UNREACHABLE, isTransientLockError, isUniqueViolation } from './errors';

/** A driver error as mysql2 gives it, wrapped as TypeORM's QueryFailedError carries it. */
const failed = (code: string, errno: number) => ({ name: 'QueryFailedError', driverError: { code, errno } });

describe('isTransientLockError', () => {
  it('takes a deadlock, a lock wait timeout and either met on the AUTO-INC lock as a transaction to run again', () => {
    expect(isTransientLockError(failed('ER_LOCK_DEADLOCK', 1213))).toBe(true);
    expect(isTransientLockError(failed('ER_LOCK_WAIT_TIMEOUT', 1205))).toBe(true);
    expect(isTransientLockError(failed('ER_AUTOINC_READ_FAILED', 1467))).toBe(true);
    expect(isTransientLockError({ errno: 1467 })).toBe(true);
  });

  it('leaves other errors to their callers', () => {
    expect(isTransientLockError(failed('ER_DUP_ENTRY', 1062))).toBe(false);
    expect(isTransientLockError(new Error('Failed to read auto-increment value'))).toBe(false);
    expect(isUniqueViolation(failed('ER_DUP_ENTRY', 1062))).toBe(true);
  });
});

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What `fn` rejects or throws with. */
async function errorOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('it did not fail');
}

describe('databaseUnavailableMessage', () => {
  it('takes a connection refused, lost or closed under a statement as the database unreachable (mysql2 as it reports them)', async () => {
    const port = await closedPort();
    const refused = await errorOf(() => new DataSource({ type: 'mysql', host: '127.0.0.1', port, username: 'baton', password: 'baton', connectTimeout: 2000 }).initialize());
    expect(databaseUnavailableMessage(refused)).toBe(DATABASE_UNREACHABLE);
    expect(DATABASE_UNREACHABLE).toBe('the database is unreachable; try again shortly');
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    expect(databaseUnavailableMessage(new QueryFailedError('SELECT SLEEP(5)', [], lost))).toBe(DATABASE_UNREACHABLE);
    const closedUnder = Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true });
    expect(databaseUnavailableMessage(new QueryFailedError('SELECT 2', [], closedUnder))).toBe(DATABASE_UNREACHABLE);
    expect(databaseUnavailableMessage(failed('ER_SERVER_SHUTDOWN', 1053))).toBe(DATABASE_UNREACHABLE);
    expect(databaseUnavailableMessage(failed('ER_CON_COUNT_ERROR', 1040))).toBe(DATABASE_UNREACHABLE);
    expect(databaseUnavailableMessage({ code: 'ETIMEDOUT', errorno: 'ETIMEDOUT', fatal: true })).toBe(DATABASE_UNREACHABLE);
  });

  it("takes a pool or connection this process closed (shutting down) as its own, and SQLite locked past its busy timeout", async () => {
    const pool = createPool({ host: '127.0.0.1', port: await closedPort() });
    await new Promise((resolve) => pool.end(resolve));
    const poolClosed = await errorOf(() => pool.promise().query('SELECT 1'));
    expect(databaseUnavailableMessage(poolClosed)).toMatch(/^this server has closed its database connections \(it is shutting down\); send it to another, or try again shortly$/);
    const sqlite = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await sqlite.destroy();
    expect(databaseUnavailableMessage(await errorOf(() => sqlite.query('SELECT 1')))).toMatch(/shutting down/);
    expect(databaseUnavailableMessage(new Error('Connection is not established with mysql database'))).toMatch(/shutting down/);

    const dir = mkdtempSync(join(tmpdir(), 'baton-busy-'));
    const [writer, other] = [new Database(join(dir, 'db.sqlite')), new Database(join(dir, 'db.sqlite'), { timeout: 0 })];
    try {
      writer.exec('CREATE TABLE t (a INTEGER); BEGIN IMMEDIATE');
      const busy = await errorOf(() => other.exec('INSERT INTO t VALUES (1)'));
      expect(databaseUnavailableMessage(new QueryFailedError('INSERT INTO t VALUES (1)', [], busy as Error))).toBe('the database is locked by another process; try again shortly');
    } finally {
      writer.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves a statement's own failures to the request (a 500, or their own answer), and lock conflicts to isTransientLockError", () => {
    expect(databaseUnavailableMessage(failed('ER_DUP_ENTRY', 1062))).toBeNull();
    expect(databaseUnavailableMessage(failed('ER_PARSE_ERROR', 1064))).toBeNull();
    expect(databaseUnavailableMessage(failed('ER_LOCK_DEADLOCK', 1213))).toBeNull();
    expect(databaseUnavailableMessage({ name: 'QueryFailedError', driverError: { code: 'SQLITE_CONSTRAINT_UNIQUE' } })).toBeNull();
    expect(databaseUnavailableMessage(new Error('SELECT secret FROM somewhere failed'))).toBeNull();
    expect(databaseUnavailableMessage(null)).toBeNull();
  });
});
