import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { DatabaseModule, TenantEntity, openDatabase } from '@baton/persistence';
import { createExecutorServer, type ExecutorServer } from '@baton/executor-sdk';
import { createAlarmBus, type BusLogger } from '@baton/messaging';
import { ConsoleModule, configureConsoleApp } from '../../console/src';
import { buildDemoHandlers } from '../../demo-executor/src';
import { EngineModule, readEngineConfig, startEngine } from '../../engine/src';
import { DEMO_EXECUTOR_APP, DemoLogins, seedDemo } from './demo-seed';
import type { EmbeddedConfig } from './embedded-config';

export interface EmbeddedBaton {
  app: NestExpressApplication;
  /** Base URL of console, API and engine callbacks, e.g. http://127.0.0.1:8080 */
  url: string;
  /** URL of the in-process demo executor. */
  executorUrl: string;
  /** True when this start seeded the demo (the database was empty). */
  seeded: boolean;
  close(): Promise<void>;
}

const embeddedBusLogger: BusLogger = { info: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) };

/**
 * Boots console and engine in one Nest application sharing one data source and one alarm bus
 * (the engine's relay publishes, the console's socket.io gateway pushes to browsers), and the demo
 * executor (built on the executor SDK, exactly as a business service would) on its own port
 * in the same process. The engine talks to it over HTTP like to any executor.
 */
export async function startEmbedded(config: EmbeddedConfig, logins: DemoLogins): Promise<EmbeddedBaton> {
  const dataSource = await openDatabase(config.databaseUrl);
  const engineConfig = readEngineConfig(process.env, { databaseUrl: config.databaseUrl, host: config.host, port: config.port });
  // One alarm bus for the engine's outbox relay and the console's gateway: in-process — or the
  // ActiveMQ broker when BATON_BROKER_URL is set (then other consoles see these alarms too).
  const alarmBus = createAlarmBus({ brokerUrl: engineConfig.brokerUrl, topicPrefix: engineConfig.alarmTopicPrefix, logger: embeddedBusLogger });

  @Module({
    imports: [
      DatabaseModule.forRoot({ dataSource }),
      ConsoleModule.forRoot({ alarmBus }),
      EngineModule.forRoot({ config: engineConfig, provideDatabase: false, alarmBus }),
    ],
  })
  class EmbeddedModule {}

  const app = await NestFactory.create<NestExpressApplication>(EmbeddedModule, { bodyParser: false, rawBody: true, logger: ['error', 'warn'] });
  configureConsoleApp(app);
  app.enableShutdownHooks();
  let executor: ExecutorServer | undefined;
  try {
    const seeded = await seedDemo(app, logins);
    await app.listen(config.port, config.host);
    const address = app.getHttpServer().address() as { port: number };
    const url = `http://${config.host}:${address.port}`;
    await startEngine(app, { url });
    executor = await startDemoExecutor(app.get(DataSource), url, config);
    const executorUrl = await executor.start();
    const running = executor;
    return {
      app,
      url,
      executorUrl,
      seeded,
      close: async () => {
        await running.stop();
        await app.close();
        await alarmBus.close();
        if (dataSource.isInitialized) await dataSource.destroy();
      },
    };
  } catch (error) {
    await executor?.stop().catch(() => undefined);
    await app.close().catch(() => undefined);
    await alarmBus.close();
    if (dataSource.isInitialized) await dataSource.destroy();
    throw error;
  }
}

async function startDemoExecutor(dataSource: DataSource, engineUrl: string, config: EmbeddedConfig): Promise<ExecutorServer> {
  const tenant = await dataSource.getRepository(TenantEntity).findOneByOrFail({ id: 'demo' });
  const dataDir = config.databaseUrl.startsWith('sqlite:') ? join(config.databaseUrl.slice('sqlite:'.length), '..') : 'data';
  return createExecutorServer({
    tenantId: tenant.id,
    secret: tenant.executorSecret,
    app: DEMO_EXECUTOR_APP,
    handlers: buildDemoHandlers(),
    engineUrls: [engineUrl],
    host: config.host,
    port: 0,
    spoolFile: join(dataDir, 'executor-spool', `${DEMO_EXECUTOR_APP}.jsonl`),
    logger: { info: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) },
  });
}
