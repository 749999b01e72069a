import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { exitOnStartFailure, ProcessConfig } from '@baton/config';
import { createLogger, NestPinoLogger, type LogLevel } from '@baton/logging';
import { DatabaseModule } from '@baton/persistence';
import { startTracing } from '@baton/tracing';
import { ConsoleModule } from './console.module';
import { configureConsoleApp } from './console-app';
import { readConsoleConfig } from './common/options';
import { openConsole } from './open-console';

/** The console on a database opened before it (DatabaseModule.open). */
class ConsoleProcessModule {}

export interface ConsoleProcess {
  app: NestExpressApplication;
  /** Base URL, e.g. http://127.0.0.1:8080 (the API under /api). */
  url: string;
}

/**
 * The console on its own (cluster mode), configured by `env` (docs/CONFIGURATION.md, "Console"):
 * `BATON_DB_URL` (required), `BATON_CONSOLE_PORT`, `BATON_HOST`; with `BATON_OPERATOR_USERNAME`
 * and `BATON_OPERATOR_PASSWORD` set, that operator is created on start if missing. Live alarms
 * (socket.io at /socket.io) come from `BATON_BROKER_URL`. A bad variable throws ConfigError, a busy
 * port PortInUseError. Prints `CONSOLE READY <url>` on stdout once it listens.
 */
export async function runConsole(env: NodeJS.ProcessEnv = process.env): Promise<ConsoleProcess> {
  const values = ProcessConfig.load('console', env);
  startTracing('baton-console', env);
  const config = readConsoleConfig(values);
  const logger = createLogger({ process: 'console', nodeId: config.consoleId, level: values.string('BATON_LOG_LEVEL') as LogLevel });
  for (const warning of values.warnings) logger.warn(warning);
  const database = await DatabaseModule.open(config.databaseUrl);
  if (!config.module.brokerUrl) logger.warn('BATON_BROKER_URL is not set: no live alarms reach this console (engines publish them to ActiveMQ)');
  const app = await NestFactory.create<NestExpressApplication>({ module: ConsoleProcessModule, imports: [database, ConsoleModule.forRoot({ ...config.module, databaseUrl: undefined })] }, { bodyParser: false, logger: new NestPinoLogger(logger) });
  try {
    configureConsoleApp(app);
    const url = await openConsole(app, config, logger);
    logger.info(`Baton console on ${url}/api (docs: /api/docs, live alarms: socket.io at /socket.io)`);
    process.stdout.write(`CONSOLE READY ${url}\n`);
    return { app, url };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

if (require.main === module) runConsole().catch((error: unknown) => exitOnStartFailure(error));
