import { join } from 'node:path';
import { demoLogins } from '../../../embedded/src/demo-logins';
import { DEMO_TENANT_ID } from '../../../embedded/src/demo-tasks';
import { redactUrlPasswords } from '@baton/domain';
import { migrateDatabase } from '../common/migrate-database';
import { CLUSTER_DATABASE, databaseName, prepareDatabase, withDatabase } from './cluster-database';
import type { ClusterOptions, HaDatabase } from './cluster-options';
import { ClusterStateFile } from './cluster-state';
import { CLUSTER_ENGINE_GROUP, ensureDemoTenant, firstSucceededRun } from './demo-tenant';
import { PrefixedOutput } from './prefixed-output';
import { PrivateServer } from './private-server';
import { repoRoot } from './repo-root';
import { SupervisedProcess } from './supervised-process';

/**
 * `--ha`: the consoles' ports and, per database, HAProxy's front for them and its stats page
 * (scripts/haproxy.sh's defaults: the replica front has ports of its own), the brokers' ports.
 */
const HA = {
  consoles: [18381, 18382],
  front: { galera: { consoles: 'http://127.0.0.1:18350', stats: 'http://127.0.0.1:18341/' }, replica: { consoles: 'http://127.0.0.1:18950', stats: 'http://127.0.0.1:18941/' } },
  brokers: [
    { BATON_ACTIVEMQ_STOMP_PORT: '18361', BATON_ACTIVEMQ_NETWORK_PORT: '18371' },
    { BATON_ACTIVEMQ_STOMP_PORT: '18362', BATON_ACTIVEMQ_NETWORK_PORT: '18372', BATON_ACTIVEMQ_NETWORK_TO: '127.0.0.1:18371' },
  ],
} as const;

/** `--ha`'s servers: Galera (or a primary and its replica) then HAProxy in front of it (database), two brokers in a network. */
function haServers(root: string, output: PrefixedOutput, db: HaDatabase): { database: PrivateServer[]; brokers: PrivateServer[] } {
  return {
    database:
      db === 'galera'
        ? [new PrivateServer('galera', root, output), new PrivateServer('haproxy', root, output)]
        : [new PrivateServer('replica', root, output, { script: 'mariadb-replica.sh' }), new PrivateServer('haproxy', root, output, { env: { BATON_HAPROXY_DATABASE: 'replica' } })],
    brokers: HA.brokers.map((env, i) => new PrivateServer(`activemq-${i + 1}`, root, output, { script: 'activemq.sh', env })),
  };
}

/** Starts the servers one after the other (HAProxy needs its Galera nodes); their URLs. */
async function inOrder(servers: readonly PrivateServer[]): Promise<string[]> {
  const urls: string[] = [];
  for (const server of servers) urls.push(await server.ensureRunning());
  return urls;
}

/**
 * Resolves once HAProxy sends requests to a console: it marks the consoles up only at its next
 * health check after they are ready (every 500 ms), and answers 503 itself until then.
 */
async function proxiedConsoleUp(front: string): Promise<void> {
  const deadline = Date.now() + PROXY_UP_TIMEOUT_MS;
  for (;;) {
    const status = await fetch(`${front}/api/health`).then((res) => res.status, (error: Error) => error.message);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`HAProxy at ${front} sends no request to a console after ${PROXY_UP_TIMEOUT_MS / 1000} s (last answer: ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** How long HAProxy may take to see a ready console up (checks every 500 ms; a loaded machine). */
const PROXY_UP_TIMEOUT_MS = 15_000;
/** How long a Baton process may take to print its ready line (migrations, a cold disk). */
const READY_TIMEOUT_MS = 120_000;
/** How long the first demo run may take to succeed once the executor is up (the cron task fires every 10 s). */
const FIRST_RUN_TIMEOUT_MS = 120_000;

/**
 * `baton cluster`: a local cluster in one command (`--ha`: the highly available set — a three-node
 * Galera cluster and two consoles behind HAProxy, two brokers in a network). Starts the private MariaDB and ActiveMQ of
 * scripts/ (unless BATON_DB_URL / BATON_BROKER_URL name others), migrates the database, starts a
 * console, the engines and the demo executor as child processes with prefixed output, creates
 * the demo tenant on first start, and prints the URLs and logins once a demo run has SUCCEEDED.
 * SIGINT/SIGTERM stop exactly what it started (the children, then the database and broker if it
 * started them) and exit 0; a child that dies stops everything and exits 1.
 */
export async function runCluster(options: ClusterOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const startedAt = Date.now();
  const root = repoRoot();
  const engineNames = Array.from({ length: options.engines }, (_, i) => `engine-${i + 1}`);
  const consoleNames = options.ha ? HA.consoles.map((_, i) => `console-${i + 1}`) : ['console'];
  const serverNames = options.ha ? [options.db, 'haproxy', 'activemq-1', 'activemq-2'] : ['mariadb', 'activemq'];
  const output = new PrefixedOutput(['cluster', ...serverNames, ...consoleNames, ...engineNames, 'executor']);
  const say = (line: string) => output.line('cluster', line);
  const servers = options.ha ? haServers(root, output, options.db) : { database: [new PrivateServer('mariadb', root, output)], brokers: [new PrivateServer('activemq', root, output)] };
  const children: SupervisedProcess[] = [];

  let stopping: Promise<void> | undefined;
  const stop = (exitCode: number): Promise<void> =>
    (stopping ??= (async () => {
      // Executor first (its runs end), then the engines (they hand back what they hold), the console last.
      for (const child of [...children].reverse()) {
        if (!child.exit) say(`stopping ${child.name} (pid ${child.pid})`);
        await child.stop();
      }
      for (const server of [...servers.brokers, ...servers.database].reverse()) {
        if (server.startedHere) say(`stopping ${server.name} (started by this cluster)`);
        await server.stopIfStartedHere().catch((error: Error) => say(error.message));
      }
      say(exitCode === 0 ? 'stopped' : 'stopped after a failure');
      process.exit(exitCode);
    })());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      say(`${signal}: stopping what this cluster started`);
      void stop(0);
    });
  }
  // `npm run cluster` and `npx baton cluster` exit on a SIGTERM without passing it on (npm 11),
  // and this process is handed to init: then it stops what it started as if it got the signal.
  // Only under npm (npm_command set): `nohup node bin/baton.js cluster &` outlives its shell on purpose.
  const parent = process.ppid;
  if (env.npm_command) {
    setInterval(() => {
      if (process.ppid === parent && parent !== 1) return; // npm is never pid 1
      say(`the process that started this cluster (pid ${parent}: npm, npx) is gone: stopping what this cluster started`);
      void stop(0);
    }, 1_000).unref();
  }
  process.on('exit', () => children.forEach((child) => child.killNow()));
  const start = (name: string, app: string, childEnv: NodeJS.ProcessEnv, readyLine: RegExp): SupervisedProcess => {
    const child = new SupervisedProcess(name, join(root, 'dist', 'apps', app, 'src', 'main.js'), childEnv, output, readyLine, (dead) => {
      say(`${dead.name} (pid ${dead.pid}) exited unexpectedly (${dead.exitText()}): stopping the cluster`);
      void stop(1);
    });
    say(`started ${name} (pid ${child.pid})`);
    children.push(child);
    return child;
  };

  try {
    const [databaseUrl, brokerUrl] = await Promise.all([
      env.BATON_DB_URL ? Promise.resolve(env.BATON_DB_URL) : inOrder(servers.database).then((urls) => withDatabase(urls[urls.length - 1], CLUSTER_DATABASE)),
      env.BATON_BROKER_URL
        ? Promise.resolve(env.BATON_BROKER_URL)
        : Promise.all(servers.brokers.map((b) => b.ensureRunning())).then((urls) => (urls.length > 1 ? `failover:(${urls.join(',')})` : urls[0])),
    ]);
    if (!/^(mysql|mariadb):\/\//.test(databaseUrl)) throw new Error(`a cluster needs MySQL/MariaDB (several engines on one database): BATON_DB_URL is ${redactUrlPasswords(databaseUrl)}`);
    const database = databaseName(databaseUrl);
    const state = new ClusterStateFile(root, database);
    if (options.fresh) {
      say(`--fresh: dropping database ${database} and ${state.path}`);
      state.delete();
    }
    await prepareDatabase(databaseUrl, options.fresh);
    const migrations = await migrateDatabase(databaseUrl);
    const appliedNow = migrations.applied.length > 0 ? `, ${migrations.applied.length} applied now` : '';
    say(`database ${redactUrlPasswords(databaseUrl)}: schema up to date (${migrations.total} migrations${appliedNow})`);

    const logins = demoLogins(env);
    const shared = { ...env, BATON_DB_URL: databaseUrl, BATON_BROKER_URL: brokerUrl };
    const consoleProcesses = consoleNames.map((name, i) =>
      start(
        name,
        'console',
        {
          ...shared,
          BATON_CONSOLE_PORT: String(options.ha ? HA.consoles[i] : options.consolePort),
          BATON_OPERATOR_USERNAME: logins.operator.username,
          BATON_OPERATOR_PASSWORD: logins.operator.password,
        },
        /^CONSOLE READY (\S+)/,
      ),
    );
    // The consoles (and HAProxy's front before them): no tenant's executor may be registered there (the engines know the rest).
    const consoleAddresses = options.ha ? [...HA.consoles.map((port) => `http://127.0.0.1:${port}`), HA.front[options.db].consoles] : options.consolePort ? [`http://127.0.0.1:${options.consolePort}`] : [];
    const engines = engineNames.map((name, i) =>
      start(
        name,
        'engine',
        {
          ...shared,
          BATON_CLUSTER_ADDRESSES: env.BATON_CLUSTER_ADDRESSES ?? consoleAddresses.join(','),
          BATON_ENGINE_PORT: String(options.enginePort === 0 ? 0 : options.enginePort + i),
          BATON_ENGINE_GROUPS: CLUSTER_ENGINE_GROUP,
          BATON_ENGINE_ID: `cluster-${name}`,
        },
        /^ENGINE READY (\S+) (\S+)/,
      ),
    );
    const consoleUrls = await Promise.all(consoleProcesses.map(async (p) => (await p.whenReady(READY_TIMEOUT_MS))[1]));
    // --ha: browsers and API clients go through HAProxy, which moves them when a console dies.
    const consoleUrl = options.ha ? HA.front[options.db].consoles : consoleUrls[0];
    const engineUrls = await Promise.all(engines.map(async (engine) => (await engine.whenReady(READY_TIMEOUT_MS))[2]));
    if (options.ha) await proxiedConsoleUp(consoleUrl);

    const tenant = await ensureDemoTenant(consoleUrl, logins, state);
    say(tenant.created ? `created tenant "${DEMO_TENANT_ID}" with its admin and the demo tasks; executor secret kept in ${state.path}` : `tenant "${DEMO_TENANT_ID}" kept from the previous start`);
    const executorEnv = `BATON_TENANT=${DEMO_TENANT_ID} BATON_EXECUTOR_SECRET=${tenant.executorSecret} BATON_ENGINE_URLS=${engineUrls.join(',')}`;
    let firstRun = '';
    if (options.executor) {
      // Neither the database nor the broker: an executor's alarms go through the engines, and only
      // engines and consoles may reach the broker (docs/OPERATIONS.md, Broker).
      const { BATON_DB_URL: _database, BATON_BROKER_URL: _broker, ...executorBase } = env;
      const executor = start(
        'executor',
        'demo-executor',
        {
          ...executorBase,
          BATON_TENANT: DEMO_TENANT_ID,
          BATON_EXECUTOR_SECRET: tenant.executorSecret,
          BATON_ENGINE_URLS: engineUrls.join(','),
          BATON_EXECUTOR_SPOOL: join(root, '.tmp', 'cluster', `${database}-executor-spool.jsonl`),
        },
        /^READY (\S+)/,
      );
      await executor.whenReady(READY_TIMEOUT_MS);
      const run = await firstSucceededRun(consoleUrl, logins, startedAt, FIRST_RUN_TIMEOUT_MS);
      firstRun = `  first run  demo run #${run.id} (${run.taskName}) SUCCEEDED ${((Date.now() - startedAt) / 1000).toFixed(1)} s after the start`;
    }
    const base = consoleUrl.replace('127.0.0.1', 'localhost');
    console.log(
      [
        '',
        options.ha
          ? `Baton — local highly available cluster: 2 consoles behind HAProxy, ${engines.length} engine(s)${options.executor ? ', the demo executor' : ''}, ${options.db === 'galera' ? 'a 3-node Galera cluster' : 'a MariaDB primary and its replica'} behind HAProxy, 2 ActiveMQ brokers`
          : `Baton — local cluster: a console, ${engines.length} engine(s)${options.executor ? ' and the demo executor' : ''} on MariaDB and ActiveMQ`,
        `  console    ${base}/        (web console; REST API under ${base}/api, docs at ${base}/api/docs)`,
        ...(options.ha ? [`  consoles   ${consoleUrls.join('  ')}   (behind ${base}; HAProxy stats ${HA.front[options.db].stats})`] : []),
        ...(options.ha && options.db === 'replica' ? ['  failover   when the primary dies: scripts/mariadb-replica.sh promote   (the operator\'s step)'] : []),
        `  operator   ${logins.operator.username} / ${logins.operator.password}`,
        `  login      tenant ${logins.tenant.tenant}, ${logins.tenant.username} / ${logins.tenant.password}   (the tenant's admin)`,
        `  engines    ${engineUrls.join('  ')}   (group "${CLUSTER_ENGINE_GROUP}"; /health, /metrics)`,
        `  database   ${redactUrlPasswords(databaseUrl)}`,
        `  broker     ${brokerUrl}`,
        `  executor   ${executorEnv}`,
        firstRun || '  executor   not started (--no-executor): run yours with the line above',
        '  stop       Ctrl-C (stops what this command started)',
        '',
      ].join('\n'),
    );
  } catch (error) {
    say(`cannot start the cluster: ${(error as Error).message}`);
    await stop(1);
  }
}
