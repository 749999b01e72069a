import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DataSource } from 'typeorm';
import { DatabaseModule, openDatabase } from '@baton/persistence';
import { createAlarmBus, InProcessWakeups, type AlarmBus, type BusLogger } from '@baton/messaging';
import type { ProcessConfig } from '@baton/config';
import { NestPinoLogger, type BatonLogger } from '@baton/logging';
import { ConsoleModule, configureConsoleApp, EngineWakeups, NodeWakeups, systemClock, type ConsoleModuleOptions } from '../../console/src';
import { sessionCookieSecure } from '../../console/src/common/options';
import { readSsoOptions } from '../../console/src/common/sso-options';
import { EngineModule, readEngineConfig, type EngineConfig } from '../../engine/src';

/** Console and engine of one process, before it listens. */
export interface OneProcess {
  app: NestExpressApplication;
  dataSource: DataSource;
  alarmBus: AlarmBus;
  engine: EngineConfig;
}

/** Alarm bus and demo executor lines: through `logger` when given, else warnings and errors on stderr (their routine lines at debug). */
export function quietLogger(logger: BatonLogger | undefined, component: string): BusLogger {
  const child = logger?.child({ component });
  if (!child) return { info: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) };
  return { info: (m) => child.debug(m), warn: (m) => child.warn(m), error: (m) => child.error(m) };
}

/**
 * Console and engine in one Nest application sharing one data source and one alarm bus (the
 * engine's relay publishes, the console's socket.io gateway pushes to browsers): embedded mode,
 * and `baton node`. A run the console writes for a group the engine serves reaches its claimer by
 * a function call; other engines of a cluster on MySQL/MariaDB hear of cancels (and of the other
 * groups' wake-ups) over HTTP, as from a console of its own (NodeWakeups). The engine's routes
 * (callbacks, heartbeats, wake-ups) are mounted beside the console's, on its port.
 */
export async function bootOneProcess(
  /** The console's variables and the engine's (embedded mode: one set holds both). */
  values: { console: ProcessConfig; engine: ProcessConfig },
  /** `publicUrl`: the URL the engine registers, null for the one it listens on (default: BATON_ENGINE_URL's). */
  where: { databaseUrl: string; host: string; port: number; publicUrl?: string | null; nodeId?: string },
  /** `console`: the console's options beyond what both processes share (a node's console id, CORS origins). */
  options: { logger?: BatonLogger; console?: Pick<ConsoleModuleOptions, 'consoleId' | 'socketCorsOrigins'> } = {},
): Promise<OneProcess> {
  const dataSource = await openDatabase(where.databaseUrl);
  const engine = readEngineConfig(process.env, { databaseUrl: where.databaseUrl, host: where.host, port: where.port, ...('publicUrl' in where ? { publicUrl: where.publicUrl } : {}), ...(where.nodeId ? { nodeId: where.nodeId } : {}) }, values.engine);
  // In-process — or the ActiveMQ broker when BATON_BROKER_URL is set (then other consoles see these alarms too).
  const alarmBus = createAlarmBus({ brokerUrl: engine.brokerUrl, topicPrefix: engine.alarmTopicPrefix, logger: quietLogger(options.logger, 'AlarmBus') });
  const local = new InProcessWakeups();
  const wakeups = new NodeWakeups(local, engine.groups, new EngineWakeups(dataSource, systemClock, { exceptNodeId: engine.nodeId }));

  @Module({
    imports: [
      DatabaseModule.forRoot({ dataSource }),
      ConsoleModule.forRoot({ ...options.console, alarmBus, wakeups, retentionCeiling: engine.retention, sessionCookieSecure: sessionCookieSecure(values.console), sso: readSsoOptions(values.console), traceUrlTemplate: values.console.optionalString('BATON_TRACE_URL_TEMPLATE') ?? null }),
      EngineModule.forRoot({ config: engine, provideDatabase: false, alarmBus, wakeups: local }),
    ],
  })
  class OneProcessModule {}

  const app = await NestFactory.create<NestExpressApplication>(OneProcessModule, {
    bodyParser: false,
    rawBody: true,
    logger: options.logger ? new NestPinoLogger(options.logger) : ['error', 'warn'],
  });
  configureConsoleApp(app);
  return { app, dataSource, alarmBus, engine };
}
