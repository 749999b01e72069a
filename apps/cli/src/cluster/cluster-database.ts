import { createConnection } from 'mysql2/promise';

/** The database `baton cluster` uses on the private MariaDB (unless BATON_DB_URL names another). */
export const CLUSTER_DATABASE = 'baton_cluster';

/** `mysql://u:p@host:port/` + a database name → a database URL. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The database name of a mysql:// URL; throws when it has none. */
export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(name)) throw new Error(`BATON_DB_URL must name a database (letters, digits, _ and $): got "${name}"`);
  return name;
}

/** Creates the URL's database when missing; with `fresh`, drops it first (every table and row in it). */
export async function prepareDatabase(databaseUrl: string, fresh: boolean): Promise<void> {
  const name = databaseName(databaseUrl);
  const server = new URL(databaseUrl);
  server.pathname = '/';
  const conn = await createConnection({ uri: server.toString().replace(/^mariadb:/, 'mysql:'), connectTimeout: 10_000 });
  try {
    if (fresh) await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await conn.end();
  }
}
