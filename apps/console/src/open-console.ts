import type { NestExpressApplication } from '@nestjs/platform-express';
import { listenOrExplain } from '@baton/config';
import type { BatonLogger } from '@baton/logging';
import type { ConsoleProcessConfig } from './common/options';
import { UsersService } from './users/users.service';

/**
 * A console app's last steps before it serves: shutdown hooks, the operator of BATON_OPERATOR_*
 * created when missing, listening on BATON_HOST:BATON_CONSOLE_PORT. Its base URL.
 * Also a node's (apps/embedded/src/node-main.ts).
 */
export async function openConsole(app: NestExpressApplication, config: Pick<ConsoleProcessConfig, 'operator' | 'host' | 'port'>, logger: BatonLogger): Promise<string> {
  app.enableShutdownHooks();
  if (config.operator) {
    const created = await app.get(UsersService).ensure({ ...config.operator, role: 'OPERATOR' });
    if (created) logger.info(`created operator "${config.operator.username}"`);
  }
  await listenOrExplain(() => app.listen(config.port, config.host), { port: config.port, host: config.host, variable: 'BATON_CONSOLE_PORT' });
  return `http://${config.host}:${(app.getHttpServer().address() as { port: number }).port}`;
}

