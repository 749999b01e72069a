import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';

/**
 * Server-level chores on the test MariaDB/MySQL (create and drop per-file databases).
 * No vitest imports here: global-setup.ts uses it too.
 */

/** Test databases are named `baton_t_<creation time, base 36 seconds>_<random>`. */
const TEST_DB_PREFIX = 'baton_t_';

/** `mysql://u:p@host:port/` + a database name → a database URL. */
export function mysqlDatabaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

type AdminConnection = Awaited<ReturnType<typeof createConnection>>;

/**
 * Connects, trying again for up to 30 s while the connection is refused or closed at once: behind
 * HAProxy (test/ha), a Galera cluster just started or rejoined closes connections while HAProxy's
 * health checks catch up ("Connection lost: The server closed the connection"). A plain server
 * answers the first try.
 */
async function connect(uri: string): Promise<AdminConnection> {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      return await createConnection({ uri, connectTimeout: 10_000 });
    } catch (err) {
      const code = (err as { code?: string }).code;
      const transient = code === 'PROTOCOL_CONNECTION_LOST' || code === 'ECONNREFUSED' || code === 'ECONNRESET';
      if (!transient || Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function withServer<T>(serverUrl: string, fn: (conn: AdminConnection) => Promise<T>): Promise<T> {
  const url = new URL(serverUrl);
  url.pathname = '/';
  const conn = await connect(url.toString().replace(/^mariadb:/, 'mysql:'));
  try {
    return await fn(conn);
  } finally {
    await conn.end();
  }
}

/** Creates a fresh, uniquely named, empty utf8mb4 database and returns its name. */
export async function createMysqlTestDatabase(serverUrl: string): Promise<string> {
  const name = `${TEST_DB_PREFIX}${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString('hex')}`;
  await withServer(serverUrl, (conn) =>
    conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`),
  );
  return name;
}

export async function dropMysqlDatabase(serverUrl: string, name: string): Promise<void> {
  if (!name.startsWith(TEST_DB_PREFIX)) throw new Error(`refusing to drop ${name}: not a test database`);
  await withServer(serverUrl, (conn) => conn.query(`DROP DATABASE IF EXISTS \`${name}\``));
}

/**
 * Drops test databases left behind by killed runs: those created more than `olderThanMs` ago
 * (no test file keeps its database that long, so a parallel run's databases are safe).
 */
export async function dropStaleMysqlTestDatabases(serverUrl: string, olderThanMs = 3 * 3600_000): Promise<string[]> {
  return withServer(serverUrl, async (conn) => {
    const [rows] = await conn.query(`SHOW DATABASES LIKE 'baton\\_t\\_%'`);
    const dropped: string[] = [];
    for (const row of rows as Array<Record<string, string>>) {
      const name = Object.values(row)[0];
      const created = parseInt(name.slice(TEST_DB_PREFIX.length).split('_')[0], 36) * 1000;
      if (Number.isFinite(created) && Date.now() - created > olderThanMs) {
        await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
        dropped.push(name);
      }
    }
    return dropped;
  });
}
