import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
// The global setup runs outside vitest's aliases: the file itself, not @baton/domain.
import { redactUrlPasswords } from '../../libs/domain/src/redaction/redact-url';
import { activemqScript } from './broker';
import { dropStaleMysqlTestDatabases } from './mysql-admin';

/**
 * Vitest global setup (runs once, in the main process, before any worker starts): makes a
 * MariaDB/MySQL server available to the tests and names it in process.env, which the test
 * workers (forks) inherit:
 *
 * - BATON_TEST_MYSQL_URL set: use that server as is (e.g. CI's, or your own).
 * - BATON_SKIP_MYSQL=1: no server. The SQLite tests run; the MySQL suites fail with a message.
 * - otherwise: `scripts/mariadb.sh ensure-installed` and `start --lease <this pid>`: the private
 *   MariaDB on 127.0.0.1:${BATON_MARIADB_PORT:-3407}, started if needed. At teardown
 *   `release <this pid>` stops it only if a test run started it and no other test run (a
 *   parallel developer's) still holds a lease; a server started by hand (npm run db:start)
 *   stays up. Only the PID in the script's pid file is ever stopped.
 *
 * If the server cannot be had, the reason goes to BATON_TEST_MYSQL_ERROR and the MySQL suites
 * fail with it (test/support/databases.ts); pure tests still run.
 *
 * The same for the ActiveMQ broker of the alarm tests (setupBroker below, test/support/broker.ts):
 * BATON_TEST_BROKER_URL / BATON_SKIP_BROKER=1 / scripts/activemq.sh start --lease.
 */
const run = promisify(execFile);
const SCRIPT = resolve(__dirname, '../../scripts/mariadb.sh');

async function script(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('bash', [SCRIPT, ...args], { encoding: 'utf8', timeout: 15 * 60_000, maxBuffer: 16 << 20 });
    return stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`scripts/mariadb.sh ${args.join(' ')} failed: ${(e.stderr || e.message).trim()}`);
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const stopBroker = await setupBroker();
  const stopMysql = await setupMysql();
  return async () => {
    await stopMysql?.();
    await stopBroker?.();
  };
}

async function setupMysql(): Promise<(() => Promise<void>) | void> {
  delete process.env.BATON_TEST_MYSQL_ERROR;
  if (process.env.BATON_TEST_MYSQL_URL) {
    console.log(`[baton tests] MySQL: BATON_TEST_MYSQL_URL=${redactUrlPasswords(process.env.BATON_TEST_MYSQL_URL)}`);
    await cleanStale(process.env.BATON_TEST_MYSQL_URL);
    return;
  }
  if (process.env.BATON_SKIP_MYSQL === '1') {
    console.log('[baton tests] MySQL: skipped (BATON_SKIP_MYSQL=1); MySQL suites will fail');
    return;
  }
  const lease = String(process.pid);
  try {
    const started = Date.now();
    await script('ensure-installed');
    const url = await script('start', '--lease', lease);
    if (!/^mysql:\/\//.test(url)) throw new Error(`scripts/mariadb.sh start printed "${url}", not a mysql:// URL`);
    process.env.BATON_TEST_MYSQL_URL = url;
    console.log(`[baton tests] MySQL: private MariaDB ${redactUrlPasswords(url)} ready in ${Date.now() - started} ms`);
  } catch (err) {
    process.env.BATON_TEST_MYSQL_ERROR = (err as Error).message;
    console.error(`[baton tests] MySQL unavailable, MySQL suites will fail: ${(err as Error).message}`);
    return;
  }
  await cleanStale(process.env.BATON_TEST_MYSQL_URL);
  return async () => {
    delete process.env.BATON_TEST_MYSQL_URL;
    await script('release', lease).catch((err: Error) => console.error(`[baton tests] ${err.message}`));
  };
}

/**
 * The ActiveMQ broker of the alarm tests, like MariaDB: BATON_TEST_BROKER_URL set → used as is;
 * BATON_SKIP_BROKER=1 → none (the broker suites fail with a message); otherwise
 * `scripts/activemq.sh ensure-installed` and `start --lease <this pid>` (STOMP on
 * 127.0.0.1:${BATON_ACTIVEMQ_STOMP_PORT:-61613}), released at teardown. The reason of a failure
 * goes to BATON_TEST_BROKER_ERROR (test/support/broker.ts reports it).
 */
async function setupBroker(): Promise<(() => Promise<void>) | void> {
  delete process.env.BATON_TEST_BROKER_ERROR;
  if (process.env.BATON_TEST_BROKER_URL) {
    console.log(`[baton tests] ActiveMQ: BATON_TEST_BROKER_URL=${redactUrlPasswords(process.env.BATON_TEST_BROKER_URL)}`);
    return;
  }
  if (process.env.BATON_SKIP_BROKER === '1') {
    console.log('[baton tests] ActiveMQ: skipped (BATON_SKIP_BROKER=1); broker suites will fail');
    return;
  }
  const lease = String(process.pid);
  try {
    const started = Date.now();
    await activemqScript(null, 'ensure-installed');
    const url = await activemqScript(null, 'start', '--lease', lease);
    if (!/^stomp:\/\//.test(url)) throw new Error(`scripts/activemq.sh start printed "${url}", not a stomp:// URL`);
    process.env.BATON_TEST_BROKER_URL = url;
    console.log(`[baton tests] ActiveMQ: private broker ${url} ready in ${Date.now() - started} ms`);
  } catch (err) {
    process.env.BATON_TEST_BROKER_ERROR = (err as Error).message;
    console.error(`[baton tests] ActiveMQ unavailable, broker suites will fail: ${(err as Error).message}`);
    return;
  }
  return async () => {
    delete process.env.BATON_TEST_BROKER_URL;
    await activemqScript(null, 'release', lease).catch((err: Error) => console.error(`[baton tests] ${err.message}`));
  };
}

async function cleanStale(serverUrl: string): Promise<void> {
  try {
    const dropped = await dropStaleMysqlTestDatabases(serverUrl);
    if (dropped.length) console.log(`[baton tests] dropped ${dropped.length} stale test database(s)`);
  } catch (err) {
    // Not fatal here; the suites will report a broken server soon enough.
    console.error(`[baton tests] could not clean stale test databases: ${(err as Error).message}`);
  }
}

