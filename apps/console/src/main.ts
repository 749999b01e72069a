import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConsoleModule } from './console.module';
import { configureConsoleApp } from './console-app';
import { UsersService } from './users/users.service';

/**
 * The console on its own (cluster mode): `BATON_DB_URL` (required), `BATON_CONSOLE_PORT`
 * (default 8080), `BATON_HOST` (default 127.0.0.1). With `BATON_OPERATOR_USERNAME` and
 * `BATON_OPERATOR_PASSWORD` set, that operator is created on start if missing.
 * Live alarms (socket.io at /socket.io): `BATON_BROKER_URL` (the ActiveMQ STOMP broker(s) the
 * engines publish to), `BATON_ALARM_TOPIC_PREFIX` (default `baton.alarms.`),
 * `BATON_CONSOLE_CORS_ORIGINS` (comma list of browser origins allowed to connect from elsewhere).
 * Prints `CONSOLE READY <url>` on stdout once it listens.
 */
async function bootstrap(): Promise<void> {
  const databaseUrl = process.env.BATON_DB_URL;
  if (!databaseUrl) throw new Error('BATON_DB_URL is required (mysql://user:pass@host:3306/baton or sqlite:path)');
  const port = Number(process.env.BATON_CONSOLE_PORT ?? 8080);
  const host = process.env.BATON_HOST ?? '127.0.0.1';
  const brokerUrl = process.env.BATON_BROKER_URL?.trim() || null;
  if (!brokerUrl) Logger.warn('BATON_BROKER_URL is not set: no live alarms reach this console (engines publish them to ActiveMQ)', 'Console');
  const app = await NestFactory.create<NestExpressApplication>(
    ConsoleModule.forRoot({
      databaseUrl,
      brokerUrl,
      alarmTopicPrefix: process.env.BATON_ALARM_TOPIC_PREFIX?.trim() || undefined,
      socketCorsOrigins: (process.env.BATON_CONSOLE_CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    }),
    { bodyParser: false },
  );
  configureConsoleApp(app);
  app.enableShutdownHooks();
  const username = process.env.BATON_OPERATOR_USERNAME;
  const password = process.env.BATON_OPERATOR_PASSWORD;
  if (username && password) {
    const created = await app.get(UsersService).ensure({ username, password, role: 'OPERATOR' });
    if (created) Logger.log(`Created operator "${username}"`, 'Console');
  }
  await app.listen(port, host);
  const bound = (app.getHttpServer().address() as { port: number }).port;
  Logger.log(`Baton console on http://${host}:${bound}/api (docs: /api/docs, live alarms: socket.io at /socket.io)`, 'Console');
  process.stdout.write(`CONSOLE READY http://${host}:${bound}\n`);
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
