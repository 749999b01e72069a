import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DatabaseModule, openDatabase } from '@baton/persistence';
import { ConsoleModule, configureConsoleApp } from '../../console/src';
import { DemoLogins, seedDemo } from './demo-seed';
import type { EmbeddedConfig } from './embedded-config';

export interface EmbeddedBaton {
  app: NestExpressApplication;
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** True when this start seeded the demo (the database was empty). */
  seeded: boolean;
  close(): Promise<void>;
}

/** Boots console, engine and demo executor in one Nest application sharing one data source. */
export async function startEmbedded(config: EmbeddedConfig, logins: DemoLogins): Promise<EmbeddedBaton> {
  const dataSource = await openDatabase(config.databaseUrl);

  @Module({ imports: [DatabaseModule.forRoot({ dataSource }), ConsoleModule.forRoot()] })
  class EmbeddedModule {}

  const app = await NestFactory.create<NestExpressApplication>(EmbeddedModule, {
    bodyParser: false,
    rawBody: true,
    logger: ['error', 'warn'],
  });
  configureConsoleApp(app);
  app.enableShutdownHooks();
  const seeded = await seedDemo(app, logins);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    url: `http://${config.host}:${address.port}`,
    seeded,
    close: async () => {
      await app.close();
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}
