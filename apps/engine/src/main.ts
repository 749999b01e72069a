import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readEngineConfig } from './config/engine-config';
import { EngineModule } from './engine.module';
import { startEngine } from './start-engine';

/** After SIGTERM/SIGINT, give the graceful stop this long before exiting anyway. */
const SHUTDOWN_GRACE_MS = 20_000;

/**
 * A standalone engine node (cluster mode), configured by environment (readEngineConfig:
 * BATON_DB_URL, BATON_ENGINE_GROUPS, BATON_ENGINE_PORT, …). Serves the callback API, GET /health
 * and GET /metrics, and prints one line `ENGINE READY <nodeId> <url>` on stdout once the node is
 * registered and working (process-level tests wait for it). SIGTERM/SIGINT: graceful stop —
 * runs still held go back to PENDING, the node is marked DOWN — then exit.
 */
async function bootstrap(): Promise<void> {
  const config = readEngineConfig();
  // No global body parser: the signed routes read the raw body themselves (signatures cover the exact bytes; up to 2 MB).
  const app = await NestFactory.create(EngineModule.forRoot({ config }), { bodyParser: false });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref());
  }
  await app.listen(config.port, config.host);
  const url = await startEngine(app);
  process.stdout.write(`ENGINE READY ${config.nodeId} ${url}\n`);
}

bootstrap().catch((error: unknown) => {
  Logger.error(error instanceof Error ? error.message : String(error), error instanceof Error ? error.stack : undefined, 'Engine');
  process.exit(1);
});
