import 'reflect-metadata';
import { databaseKind } from '@baton/persistence';
import { EngineAlreadyRunningError } from '../../engine/src';
import { demoLogins } from './demo-seed';
import { readEmbeddedConfig } from './embedded-config';
import { startEmbedded } from './start-embedded';

/**
 * `npm start`: Baton in one process — console API, engine and demo executor — on an SQLite
 * file and an in-process alarm bus. A single-node mode for trying Baton and for development.
 */
async function main(): Promise<void> {
  const config = readEmbeddedConfig();
  const logins = demoLogins();
  const baton = await startEmbedded(config, logins);
  const base = baton.url.replace('127.0.0.1', 'localhost');
  const sqlite = databaseKind(config.databaseUrl) === 'sqlite';
  console.log(
    [
      'Baton — embedded mode: a single node (console + engine + demo executor in one process)',
      `  database   ${config.databaseUrl}${sqlite ? '  (SQLite: one engine only; run a cluster on MySQL/MariaDB for more)' : ''}`,
      `  console    ${base}/        (web console; REST API under ${base}/api)`,
      `  API docs   ${base}/api/docs`,
      `  login      ${logins.tenant.username} / ${logins.tenant.password}   (tenant admin of "demo")`,
      `  operator   ${logins.operator.username} / ${logins.operator.password}`,
      baton.seeded ? '  demo data  seeded: tenant "demo" with five tasks' : '  demo data  kept from the previous start',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  // A refusal to start is an answer, not a crash: its message says what to do.
  console.error(error instanceof EngineAlreadyRunningError ? error.message : error);
  process.exit(1);
});
