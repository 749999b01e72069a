import { join } from 'node:path';
import { demoLogins } from '../../../embedded/src/demo-logins';
import { DEMO_TENANT_ID } from '../../../embedded/src/demo-tasks';
import { migrateDatabase, safeDatabaseUrl } from '../migrate-database';
import { CLUSTER_DATABASE, databaseName, prepareDatabase, withDatabase } from './cluster-database';
import type { ClusterOptions } from './cluster-options';
import { ClusterStateFile } from './cluster-state';
import { CLUSTER_ENGINE_GROUP, ensureDemoTenant, firstSucceededRun } from './demo-tenant';
import { PrefixedOutput } from './prefixed-output';
import { PrivateServer } from './private-server';
import { repoRoot } from './repo-root';
import { SupervisedProcess } from './supervised-process';

/** How long a Baton process may take to print its ready line (migrations, a cold disk). */
const READY_TIMEOUT_MS = 120_000;
/** How long the first demo run may take to succeed once the executor is up (the cron task fires every 10 s). */
const FIRST_RUN_TIMEOUT_MS = 120_000;

/**
 * `baton cluster`: a local cluster in one command. Starts the private MariaDB and ActiveMQ of
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
  const output = new PrefixedOutput(['cluster', 'mariadb', 'activemq', 'console', ...engineNames, 'executor']);
  const say = (line: string) => output.line('cluster', line);
  const mariadb = new PrivateServer('mariadb', root, output);
  const activemq = new PrivateServer('activemq', root, output);
  const children: SupervisedProcess[] = [];

  let stopping: Promise<void> | undefined;
  const stop = (exitCode: number): Promise<void> =>
    (stopping ??= (async () => {
      // Executor first (its runs end), then the engines (they hand back what they hold), the console last.
      for (const child of [...children].reverse()) {
        if (!child.exit) say(`stopping ${child.name} (pid ${child.pid})`);
        await child.stop();
      }
      for (const server of [activemq, mariadb]) {
        if (server.startedHere) say(`stopping ${server.name} (started by this cluster)`);
        await server.stopIfStartedHere().catch((error: Error) => say(error.message));
      }
      say(exitCode === 0 ? 'stopped' : 'stopped after a failure');
      process.exit(exitCode);
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      say(`${signal}: stopping what this cluster started`);
      void stop(0);
    });
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
      env.BATON_DB_URL ? Promise.resolve(env.BATON_DB_URL) : mariadb.ensureRunning().then((server) => withDatabase(server, CLUSTER_DATABASE)),
      env.BATON_BROKER_URL ? Promise.resolve(env.BATON_BROKER_URL) : activemq.ensureRunning(),
    ]);
    if (!/^(mysql|mariadb):\/\//.test(databaseUrl)) throw new Error(`a cluster needs MySQL/MariaDB (several engines on one database): BATON_DB_URL is ${safeDatabaseUrl(databaseUrl)}`);
    const database = databaseName(databaseUrl);
    const state = new ClusterStateFile(root, database);
    if (options.fresh) {
      say(`--fresh: dropping database ${database} and ${state.path}`);
      state.delete();
    }
    await prepareDatabase(databaseUrl, options.fresh);
    const migrations = await migrateDatabase(databaseUrl);
    say(`database ${safeDatabaseUrl(databaseUrl)}: schema up to date (${migrations.length} migrations)`);

    const logins = demoLogins(env);
    const shared = { ...env, BATON_DB_URL: databaseUrl, BATON_BROKER_URL: brokerUrl };
    const consoleProcess = start(
      'console',
      'console',
      { ...shared, BATON_CONSOLE_PORT: String(options.consolePort), BATON_OPERATOR_USERNAME: logins.operator.username, BATON_OPERATOR_PASSWORD: logins.operator.password },
      /^CONSOLE READY (\S+)/,
    );
    const engines = engineNames.map((name, i) =>
      start(
        name,
        'engine',
        {
          ...shared,
          BATON_ENGINE_PORT: String(options.enginePort === 0 ? 0 : options.enginePort + i),
          BATON_ENGINE_GROUPS: CLUSTER_ENGINE_GROUP,
          BATON_ENGINE_ID: `cluster-${name}`,
        },
        /^ENGINE READY (\S+) (\S+)/,
      ),
    );
    const consoleUrl = (await consoleProcess.whenReady(READY_TIMEOUT_MS))[1];
    const engineUrls = await Promise.all(engines.map(async (engine) => (await engine.whenReady(READY_TIMEOUT_MS))[2]));

    const tenant = await ensureDemoTenant(consoleUrl, logins, state);
    say(tenant.created ? `created tenant "${DEMO_TENANT_ID}" with its admin and the demo tasks; executor secret kept in ${state.path}` : `tenant "${DEMO_TENANT_ID}" kept from the previous start`);
    const executorEnv = `BATON_TENANT=${DEMO_TENANT_ID} BATON_EXECUTOR_SECRET=${tenant.executorSecret} BATON_ENGINE_URLS=${engineUrls.join(',')}`;
    let firstRun = '';
    if (options.executor) {
      const executor = start(
        'executor',
        'demo-executor',
        {
          ...shared,
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
        `Baton — local cluster: a console, ${engines.length} engine(s)${options.executor ? ' and the demo executor' : ''} on MariaDB and ActiveMQ`,
        `  console    ${base}/        (web console; REST API under ${base}/api, docs at ${base}/api/docs)`,
        `  operator   ${logins.operator.username} / ${logins.operator.password}`,
        `  login      tenant ${logins.tenant.tenant}, ${logins.tenant.username} / ${logins.tenant.password}   (the tenant's admin)`,
        `  engines    ${engineUrls.join('  ')}   (group "${CLUSTER_ENGINE_GROUP}"; /health, /metrics)`,
        `  database   ${safeDatabaseUrl(databaseUrl)}`,
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
