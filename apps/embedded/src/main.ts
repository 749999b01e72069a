import 'reflect-metadata';
import { exitOnStartFailure } from '@baton/config';
import { createLogger, type LogLevel } from '@baton/logging';
import { startTracing } from '@baton/tracing';
import { databaseKind } from '@baton/persistence';
import { EngineAlreadyRunningError } from '../../engine/src';
import { embeddedBanner } from './banner';
import { demoLogins } from './demo-seed';
import { readEmbeddedConfig } from './embedded-config';
import { startEmbedded, type EmbeddedBaton } from './start-embedded';

/**
 * `npm start`: Baton in one process — console API, engine and demo executor — on an SQLite
 * file and an in-process alarm bus. A single-node mode for trying Baton and for development.
 * Configured by `env` (docs/CONFIGURATION.md, "Embedded mode"): a bad variable throws
 * ConfigError, a busy BATON_CONSOLE_PORT PortInUseError. Logs through pino (Nest's start-up
 * lines at debug), then prints the banner (embeddedBanner: URLs, logins, a local executor's environment).
 */
export async function runEmbedded(env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedBaton> {
  const config = readEmbeddedConfig(env);
  startTracing('baton', env);
  const logger = createLogger({ process: 'embedded', nodeId: config.nodeId, level: config.values.string('BATON_LOG_LEVEL') as LogLevel });
  for (const warning of config.values.warnings) logger.warn(warning);
  const logins = demoLogins(env, config.values);
  const baton = await startEmbedded(config, logins, { logger });
  console.log(embeddedBanner(baton, logins, { url: config.databaseUrl, sqlite: databaseKind(config.databaseUrl) === 'sqlite' }));
  return baton;
}

// A refusal to start is an answer, not a crash: its message says what to do.
if (require.main === module) runEmbedded().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
