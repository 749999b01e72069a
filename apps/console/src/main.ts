import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConsoleModule } from './console.module';
import { configureConsoleApp } from './console-app';
import { UsersService } from './operator/users.service';

/**
 * The console on its own (cluster mode): `BATON_DB_URL` (required), `BATON_CONSOLE_PORT`
 * (default 8080), `BATON_HOST` (default 127.0.0.1). With `BATON_OPERATOR_USERNAME` and
 * `BATON_OPERATOR_PASSWORD` set, that operator is created on start if missing.
 */
async function bootstrap(): Promise<void> {
  const databaseUrl = process.env.BATON_DB_URL;
  if (!databaseUrl) throw new Error('BATON_DB_URL is required (mysql://user:pass@host:3306/baton or sqlite:path)');
  const port = Number(process.env.BATON_CONSOLE_PORT ?? 8080);
  const host = process.env.BATON_HOST ?? '127.0.0.1';
  const app = await NestFactory.create<NestExpressApplication>(ConsoleModule.forRoot({ databaseUrl }), { bodyParser: false });
  configureConsoleApp(app);
  app.enableShutdownHooks();
  const username = process.env.BATON_OPERATOR_USERNAME;
  const password = process.env.BATON_OPERATOR_PASSWORD;
  if (username && password) {
    const created = await app.get(UsersService).ensure({ username, password, role: 'OPERATOR' });
    if (created) Logger.log(`Created operator "${username}"`, 'Console');
  }
  await app.listen(port, host);
  Logger.log(`Baton console on http://${host}:${port}/api (docs: /api/docs)`, 'Console');
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
