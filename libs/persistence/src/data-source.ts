import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../../../migrations';
import { databaseUnavailable } from './database-unavailable-error';

/** Which database a URL names. */
export type DatabaseKind = 'mysql' | 'sqlite';

/**
 * Reads a Baton database URL:
 * - `mysql://user:password@host:port/database` (MySQL 8 or MariaDB ≥ 10.6): cluster mode;
 * - `sqlite:path/to/file.sqlite` (or `sqlite::memory:`): embedded mode, one engine only.
 */
export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) return 'mysql';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`BATON_DB_URL must start with mysql:// or sqlite: (got "${url.split(':')[0]}:")`);
}

/**
 * TypeORM options for a Baton database. The schema always comes from the migrations in
 * migrations/ (they run on start, on both kinds); `synchronize` is never used.
 *
 * `mysql://` gives TypeORM type `mysql`, `mariadb://` type `mariadb`. Reads and writes work
 * either way, but TypeORM reads MariaDB's catalog right only as `mariadb` (e.g. MariaDB reports
 * a nullable column's default as the text 'NULL'); resolveDataSourceOptions/openDatabase detect
 * a MariaDB server behind a `mysql://` URL.
 */
export function dataSourceOptions(url: string): DataSourceOptions {
  const common = { entities: ENTITIES, migrations: MIGRATIONS, migrationsRun: false, synchronize: false, logging: false } as const;
  if (databaseKind(url) === 'mysql') {
    return {
      ...common,
      type: url.startsWith('mariadb:') ? 'mariadb' : 'mysql',
      url: url.replace(/^mariadb:/, 'mysql:'),
      // BIGINT ids and epoch-ms instants come back as numbers (all stay below 2^53).
      supportBigNumbers: true,
      bigNumberStrings: false,
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      // A transaction's statements that need no answer of their own ride in the packet of the
      // next one (engine-queries/riders.ts). Every value in every statement is a placeholder.
      multipleStatements: true,
      extra: { connectionLimit: 20 },
    };
  }
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: file,
    // WAL lets the console read while the engine writes; NORMAL sync is safe with WAL.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
  };
}

/**
 * A DataSource adjusted to Baton's conventions (alignEntityMetadata). Use it wherever a data
 * source is made: openDatabase does; a Nest module can too:
 * `TypeOrmModule.forRootAsync({ useFactory: () => resolveDataSourceOptions(url),
 *   dataSourceFactory: (options) => new BatonDataSource(options!).initialize() })`.
 */
export class BatonDataSource extends DataSource {
  protected override async buildMetadatas(): Promise<void> {
    await super.buildMetadatas();
    alignEntityMetadata(this);
  }
}

/**
 * dataSourceOptions, with the server asked whether a `mysql://` URL leads to MariaDB (one
 * `SELECT VERSION()` on a throwaway connection) so that TypeORM gets type `mariadb` there.
 * Use it where a Nest module builds the data source: `useFactory: () => resolveDataSourceOptions(url)`.
 */
export async function resolveDataSourceOptions(url: string): Promise<DataSourceOptions> {
  const options = dataSourceOptions(url);
  if (options.type !== 'mysql') return options;
  const probe = new DataSource({ ...options, entities: [], migrations: [], extra: { connectionLimit: 1 } });
  await probe.initialize();
  try {
    const rows: Array<{ v: string }> = await probe.query('SELECT VERSION() AS v');
    return /mariadb/i.test(rows[0]?.v ?? '') ? { ...options, type: 'mariadb' } : options;
  } finally {
    await probe.destroy();
  }
}

/**
 * MariaDB rolls back a transaction left idle this long (s) and closes its session
 * (`idle_transaction_timeout`; the server's default is 0, never). A process frozen (SIGSTOP, a
 * paused VM) or cut off in the middle of a transaction holds its row locks until then: measured,
 * the takeover of an engine frozen mid-transaction waited 13 s on them. Every Baton transaction
 * is a few statements sent back to back (a tasks-as-code apply, which computes between them, is
 * allowed more: withIdleAllowance), so seconds of idleness mean the client is gone; 5 s
 * ends it before BATON_ENGINE_DEAD_AFTER_MS (8 s), when the survivors take the engine over. A
 * liveness lock is held outside any transaction: not affected.
 */
export const IDLE_TRANSACTION_TIMEOUT_S = 5;

/** Sets `idle_transaction_timeout` on every session of a MariaDB pool: the ones it opens from now on, and the one opened while initialising. */
async function endIdleTransactions(dataSource: DataSource): Promise<void> {
  const set = `SET SESSION idle_transaction_timeout = ${IDLE_TRANSACTION_TIMEOUT_S}`;
  const pool = (dataSource.driver as unknown as { pool: { on(event: 'connection', listener: (c: { query(sql: string, cb: () => void): void }) => void): void } }).pool;
  pool.on('connection', (connection) => connection.query(set, () => undefined));
  await dataSource.query(set);
}

/**
 * Opens a data source and brings its schema up to date with the migrations. A database it cannot
 * reach or use (refused, access denied, no such database) throws DatabaseUnavailableError, one
 * line naming BATON_DB_URL; a failing migration throws its own error.
 */
export async function openDatabase(url: string): Promise<DataSource> {
  return (await openDatabaseMigrated(url)).dataSource;
}

/** As openDatabase, also saying which migrations this call applied (names, in order; none when it was up to date). */
export async function openDatabaseMigrated(url: string): Promise<{ dataSource: DataSource; applied: string[] }> {
  const dataSource = await connect(url);
  try {
    if (dataSource.options.type === 'mariadb') await endIdleTransactions(dataSource);
    const applied = await withMigrationLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
    return { dataSource, applied: applied.map((migration) => migration.name) };
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

/** An initialised BatonDataSource on `url`; a failure to connect as DatabaseUnavailableError. */
async function connect(url: string): Promise<DataSource> {
  try {
    return await new BatonDataSource(await resolveDataSourceOptions(url)).initialize();
  } catch (error) {
    throw databaseUnavailable(url, error);
  }
}

/**
 * On MySQL/MariaDB, runs `fn` holding a named lock (GET_LOCK) for this database, so engines and
 * consoles that start together migrate one at a time: the first does the work, the others then
 * find nothing pending. (TypeORM's migration runner takes no lock of its own on MySQL.)
 * SQLite has one process by design; nothing to do there.
 */
async function withMigrationLock<T>(dataSource: DataSource, fn: () => Promise<T>): Promise<T> {
  const type = dataSource.options.type;
  if (type !== 'mysql' && type !== 'mariadb') return fn();
  const queryRunner = dataSource.createQueryRunner('master');
  try {
    const [{ db }]: Array<{ db: string }> = await queryRunner.query('SELECT DATABASE() AS db');
    const lock = `baton.migrate.${db}`.slice(0, 64); // lock names are server-wide, at most 64 chars
    const [{ got }]: Array<{ got: number | string | null }> = await queryRunner.query('SELECT GET_LOCK(?, 300) AS got', [lock]);
    if (Number(got) !== 1) throw new Error(`could not take the migration lock "${lock}" within 300 s (another process migrating?)`);
    try {
      return await fn();
    } finally {
      await queryRunner.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => undefined);
    }
  } finally {
    await queryRunner.release();
  }
}

const aligned = new WeakSet<object>();

/**
 * Two adjustments to the entity metadata of one data source, both about the generated BIGINT
 * keys (runs, run_logs, alarms):
 *
 * - Numbers, not strings: TypeORM turns a freshly generated BIGINT id into a string (its fix
 *   for ids above 2^53), so `(await repo.save(run)).id` would be "42" on MySQL while a read
 *   gives 42. Baton's ids stay far below 2^53 (see entities/columns.ts), so they are made
 *   numbers again, and an id beyond 2^53 fails loudly rather than losing digits.
 * - SQLite allows AUTOINCREMENT only on an `INTEGER PRIMARY KEY` (the rowid alias, 64-bit, the
 *   same range as BIGINT), so the migrations declare these keys INTEGER there; the metadata is
 *   told the same, so TypeORM's schema builder sees no difference (schema-drift test). As a
 *   side effect TypeORM does not stringify them on SQLite either.
 *
 * BatonDataSource applies it on initialize; call it yourself only on a plain DataSource.
 */
export function alignEntityMetadata(dataSource: DataSource): void {
  const sqlite = dataSource.options.type === 'better-sqlite3' || dataSource.options.type === 'sqlite';
  for (const entity of dataSource.entityMetadatas) {
    for (const column of entity.primaryColumns) {
      if (!column.isGenerated || column.generationStrategy !== 'increment' || column.type !== 'bigint') continue;
      if (aligned.has(column)) continue;
      aligned.add(column);
      if (sqlite) {
        column.type = 'integer';
        continue;
      }
      const createValueMap = column.createValueMap.bind(column);
      column.createValueMap = (value: unknown, useDatabaseName = false) => {
        const map = createValueMap(value, useDatabaseName);
        const key = useDatabaseName ? column.databaseName : column.propertyName;
        const id = map[key];
        if (typeof id === 'string') {
          const n = Number(id);
          if (!Number.isSafeInteger(n)) throw new Error(`${entity.tableName}.${column.databaseName} ${id} is beyond 2^53: Baton ids must stay numbers`);
          map[key] = n;
        }
        return map;
      };
    }
  }
}
