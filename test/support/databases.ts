import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import { BatonDataSource, openDatabase, resolveDataSourceOptions } from '@baton/persistence';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from './mysql-admin';

/**
 * Fresh databases for tests, on both kinds Baton runs on:
 * - `sqlite`: a new SQLite file in a new temp dir (a real file, so the URL can be opened by
 *   other data sources too, e.g. a Nest app under test);
 * - `mysql`: a new uniquely named database `baton_t_…` on the test MariaDB (see
 *   global-setup.ts), so test files, parallel runs and parallel developers never collide.
 * Each is dropped/deleted when closed. The schema comes from the migrations, as in production.
 *
 * Usage — the same suite on both databases:
 *
 *   import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
 *
 *   describe.each(TEST_DATABASES)('task repository on %s', (kind) => {
 *     const db = useTestDatabase(kind);          // beforeAll: create + migrate; afterAll: drop
 *     beforeEach(() => db.clear());              // optional: empty every table between tests
 *     it('saves a task', async () => {
 *       const repo = db.dataSource.getRepository(TaskEntity);
 *       …
 *     });
 *     // or hand db.url to code that opens its own connection (openDatabase(db.url), a Nest app…)
 *   });
 *
 * The mysql variant needs the test MariaDB: global-setup.ts starts a private one (or uses
 * BATON_TEST_MYSQL_URL). If it is unavailable (BATON_SKIP_MYSQL=1, or it failed to start), the
 * mysql suites FAIL with the reason; they never pass silently.
 */

export type TestDatabaseKind = 'sqlite' | 'mysql';

/** Both kinds, for `describe.each(TEST_DATABASES)`. */
export const TEST_DATABASES: readonly TestDatabaseKind[] = ['sqlite', 'mysql'];

/** An empty database (no schema yet) and how to get rid of it. */
export interface EmptyTestDatabase {
  kind: TestDatabaseKind;
  /** A Baton database URL (`sqlite:/tmp/…/baton.sqlite` or `mysql://…/baton_t_…`). */
  url: string;
  /** Deletes the database (drop / remove the file). */
  drop(): Promise<void>;
}

export interface TestDatabase {
  kind: TestDatabaseKind;
  url: string;
  /** An initialised data source on it, migrations run. */
  dataSource: DataSource;
  /** Deletes every row of every table (keeps the schema). */
  clear(): Promise<void>;
  /** Closes the data source and drops the database. */
  close(): Promise<void>;
}

/** The test MariaDB/MySQL server URL (`mysql://user:pass@127.0.0.1:3407/`), or a loud error. */
export function testMysqlServerUrl(): string {
  const url = process.env.BATON_TEST_MYSQL_URL;
  if (url) return url;
  if (process.env.BATON_SKIP_MYSQL === '1') {
    throw new Error(
      'MySQL/MariaDB tests cannot run: BATON_SKIP_MYSQL=1 is set. Unset it (the test setup then starts a ' +
        'private MariaDB via scripts/mariadb.sh) or set BATON_TEST_MYSQL_URL=mysql://user:pass@host:port/',
    );
  }
  const why = process.env.BATON_TEST_MYSQL_ERROR;
  throw new Error(
    'MySQL/MariaDB tests cannot run: no test server. ' +
      (why ? `Starting the private MariaDB failed: ${why}` : 'BATON_TEST_MYSQL_URL is not set (is test/support/global-setup.ts configured?).'),
  );
}

/**
 * Creates an empty database of the given kind (no migrations). `mysqlServerUrl`: another MariaDB
 * server than the test one (a benchmark that restarts its own server).
 */
export async function createEmptyTestDatabase(kind: TestDatabaseKind, mysqlServerUrl?: string): Promise<EmptyTestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'baton-test-'));
    return {
      kind,
      url: `sqlite:${join(dir, 'baton.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const serverUrl = mysqlServerUrl ?? testMysqlServerUrl();
  const name = await createMysqlTestDatabase(serverUrl);
  return { kind, url: mysqlDatabaseUrl(serverUrl, name), drop: () => dropMysqlDatabase(serverUrl, name) };
}

/**
 * Creates a fresh database of the given kind and opens it.
 * `migrate: false` leaves it empty (the data source is initialised but has no tables);
 * `mysqlServerUrl` as in createEmptyTestDatabase.
 */
export async function openTestDatabase(kind: TestDatabaseKind, options: { migrate?: boolean; mysqlServerUrl?: string } = {}): Promise<TestDatabase> {
  // Behind HAProxy (test/ha) a Galera node that a loaded machine's health checks mark down
  // mid-migration closes the connection: the half-made database is dropped and made again on
  // a fresh connection, as an operator would run the migration again (for up to 60 s).
  const until = Date.now() + 60_000;
  for (;;) {
    const empty = await createEmptyTestDatabase(kind, options.mysqlServerUrl);
    let dataSource: DataSource;
    try {
      if (options.migrate === false) {
        dataSource = new BatonDataSource(await resolveDataSourceOptions(empty.url));
        await dataSource.initialize();
      } else {
        dataSource = await openDatabase(empty.url);
      }
    } catch (err) {
      await empty.drop().catch(() => undefined);
      if (kind === 'mysql' && isConnectionDropped(err) && Date.now() < until) continue;
      throw err;
    }
    return {
      kind,
      url: empty.url,
      dataSource,
      clear: () => clearTables(dataSource),
      close: async () => {
        if (dataSource.isInitialized) await dataSource.destroy();
        await empty.drop();
      },
    };
  }
}

/** A connection the server (or a proxy in front of it) closed or refused, rather than a statement it refused. */
function isConnectionDropped(err: unknown): boolean {
  const code = (err as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (err as { code?: string }).code;
  return code === 'PROTOCOL_CONNECTION_LOST' || code === 'ECONNRESET' || code === 'ECONNREFUSED';
}

/** Deletes every row of every entity table (not the migrations table). */
export async function clearTables(dataSource: DataSource): Promise<void> {
  for (const entity of dataSource.entityMetadatas) {
    await dataSource.query(`DELETE FROM ${dataSource.driver.escape(entity.tableName)}`);
  }
}

/** What `useTestDatabase` returns: filled in by its beforeAll. */
export interface TestDatabaseHandle {
  readonly kind: TestDatabaseKind;
  readonly url: string;
  readonly dataSource: DataSource;
  clear(): Promise<void>;
}

/**
 * Registers beforeAll/afterAll in the current describe block: a fresh migrated database of
 * `kind` for the block, dropped after it. Read `.dataSource` / `.url` inside hooks and tests.
 */
export function useTestDatabase(kind: TestDatabaseKind, options: { migrate?: boolean } = {}): TestDatabaseHandle {
  let db: TestDatabase | undefined;
  const get = (): TestDatabase => {
    if (!db) throw new Error(`the ${kind} test database is not open (use it inside tests and hooks, not at collection time)`);
    return db;
  };
  beforeAll(async () => {
    db = await openTestDatabase(kind, options);
  });
  afterAll(async () => {
    await db?.close();
    db = undefined;
  });
  return {
    kind,
    get url() {
      return get().url;
    },
    get dataSource() {
      return get().dataSource;
    },
    clear: () => get().clear(),
  };
}
