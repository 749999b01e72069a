import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exitOnStartFailure, listenOrExplain, ProcessConfig } from '@baton/config';
import { createLogger, NestPinoLogger, type LogLevel } from '@baton/logging';
import { DatabaseModule } from '@baton/persistence';
import { startTracing } from '@baton/tracing';
import { readEngineConfig, type EngineConfig } from './config/engine-config';
import { EngineModule } from './engine.module';
import { EngineAlreadyRunningError } from './node/engine-already-running-error';
import { startEngine } from './start-engine';

/** The engine on a database opened before it (DatabaseModule.open). */
class EngineProcessModule {}

/** After SIGTERM/SIGINT, give the graceful stop this long before exiting anyway. */
const SHUTDOWN_GRACE_MS = 20_000;

export interface EngineProcess {
  app: INestApplication;
  config: EngineConfig;
  /** The URL executors call back on. */
  url: string;
}

/**
 * A standalone engine node (cluster mode), configured by `env` (docs/CONFIGURATION.md, "Engine
 * node"): a bad variable throws ConfigError, a busy BATON_ENGINE_PORT PortInUseError. Serves the
 * callback API, GET /health and GET /metrics, logs through pino, and prints one line
 * `ENGINE READY <nodeId> <url>` on stdout once the node is registered and working (process-level
 * tests wait for it). SIGTERM/SIGINT: graceful stop — runs still held go back to PENDING, the
 * node is marked DOWN — then exit.
 */
export async function runEngine(env: NodeJS.ProcessEnv = process.env): Promise<EngineProcess> {
  const values = ProcessConfig.load('engine', env);
  startTracing('baton-engine', env);
  const config = readEngineConfig(env, {}, values);
  const logger = createLogger({ process: 'engine', nodeId: config.nodeId, level: values.string('BATON_LOG_LEVEL') as LogLevel });
  for (const warning of values.warnings) logger.warn(warning);
  // No global body parser: the signed routes read the raw body themselves (signatures cover the exact bytes; up to 2 MB).
  const database = await DatabaseModule.open(config.databaseUrl);
  const app = await NestFactory.create({ module: EngineProcessModule, imports: [database, EngineModule.forRoot({ config, provideDatabase: false })] }, { bodyParser: false, logger: new NestPinoLogger(logger) });
  try {
    app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref());
    }
    await listenOrExplain(() => app.listen(config.port, config.host), { port: config.port, host: config.host, variable: 'BATON_ENGINE_PORT' });
    const url = await startEngine(app);
    process.stdout.write(`ENGINE READY ${config.nodeId} ${url}\n`);
    return { app, config, url };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

if (require.main === module) runEngine().catch((error: unknown) => exitOnStartFailure(error, [EngineAlreadyRunningError]));
