import 'reflect-metadata';
import { exitOnStartFailure } from '@baton/config';
import { createLogger, type LogLevel } from '@baton/logging';
import { databaseKind } from '@baton/persistence';
import { EngineAlreadyRunningError } from '../../engine/src';
import { demoLogins } from './demo-seed';
import { readEmbeddedConfig } from './embedded-config';
import { startEmbedded, type EmbeddedBaton } from './start-embedded';

/**
 * `npm start`: Baton in one process — console API, engine and demo executor — on an SQLite
 * file and an in-process alarm bus. A single-node mode for trying Baton and for development.
 * Configured by `env` (docs/CONFIGURATION.md, "Embedded mode"): a bad variable throws
 * ConfigError, a busy BATON_CONSOLE_PORT PortInUseError. Logs through pino (Nest's start-up
 * lines at debug), then prints the banner.
 */
export async function runEmbedded(env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedBaton> {
  const config = readEmbeddedConfig(env);
  const logger = createLogger({ process: 'embedded', nodeId: config.nodeId, level: config.values.string('BATON_LOG_LEVEL') as LogLevel });
  for (const warning of config.values.warnings) logger.warn(warning);
  const logins = demoLogins(env, config.values);
  const baton = await startEmbedded(config, logins, { logger });
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
  return baton;
}

// A refusal to start is an answer, not a crash: its message says what to do.
if (require.main === module) runEmbedded().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
