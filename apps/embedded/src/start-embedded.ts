import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { TenantEntity } from '@baton/persistence';
import { createExecutorServer, type ExecutorServer } from '@baton/executor-sdk';
import type { BusLogger } from '@baton/messaging';
import { listenOrExplain, ProcessConfig } from '@baton/config';
import type { BatonLogger } from '@baton/logging';
import { flushTracing } from '@baton/tracing';
import { buildDemoHandlers } from '../../demo-executor/src';
import { startEngine } from '../../engine/src';
import { DEMO_EXECUTOR_APP, DEMO_TENANT_ID, DemoLogins, seedDemo } from './demo-seed';
import type { EmbeddedConfig } from './embedded-config';
import { bootOneProcess, quietLogger } from './one-process';

export interface EmbeddedBaton {
  app: NestExpressApplication;
  /** Base URL of console, API and engine callbacks, e.g. http://127.0.0.1:8080 */
  url: string;
  /**
   * What executors on this machine put in BATON_ENGINE_URLS: the engine's callback and heartbeat
   * routes are mounted beside the console, so it is the console's URL (a wildcard host made
   * 127.0.0.1).
   */
  engineUrl: string;
  /** URL of the in-process demo executor. */
  executorUrl: string;
  /** The demo tenant's id and current executor secret (read from the database on every start). */
  demoTenant: { id: string; executorSecret: string };
  /** True when this start seeded the demo (the database was empty). */
  seeded: boolean;
  close(): Promise<void>;
}

/**
 * Boots console and engine in one process (bootOneProcess), and the demo executor (built on the
 * executor SDK, exactly as a business service would) on its own port in the same process. The
 * engine talks to it over HTTP like to any executor.
 */
export async function startEmbedded(config: EmbeddedConfig, logins: DemoLogins, options: { logger?: BatonLogger } = {}): Promise<EmbeddedBaton> {
  const values = config.values ?? ProcessConfig.load('embedded');
  const { app, dataSource, alarmBus } = await bootOneProcess({ console: values, engine: values }, { databaseUrl: config.databaseUrl, host: config.host, port: config.port, publicUrl: null, nodeId: config.nodeId }, options);
  let executor: ExecutorServer | undefined;
  try {
    const seeded = await seedDemo(app, logins);
    await listenOrExplain(() => app.listen(config.port, config.host), { port: config.port, host: config.host, variable: 'BATON_CONSOLE_PORT' });
    const address = app.getHttpServer().address() as { port: number };
    const url = `http://${config.host}:${address.port}`;
    await startEngine(app, { url });
    const engineUrl = url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://127.0.0.1:');
    const demoTenant = await app.get(DataSource).getRepository(TenantEntity).findOneByOrFail({ id: DEMO_TENANT_ID });
    executor = startDemoExecutor(demoTenant, engineUrl, config, quietLogger(options.logger, 'DemoExecutor'));
    const executorUrl = await executor.start();
    const running = executor;
    const close = async () => {
      stopOnSignals();
      await running.stop();
      await app.close();
      await flushTracing();
      await alarmBus.close();
      if (dataSource.isInitialized) await dataSource.destroy();
    };
    const stopOnSignals = onStopSignal(close);
    return {
      app,
      url,
      engineUrl,
      executorUrl,
      demoTenant: { id: demoTenant.id, executorSecret: demoTenant.executorSecret },
      seeded,
      close,
    };
  } catch (error) {
    await executor?.stop().catch(() => undefined);
    await app.close().catch(() => undefined);
    await alarmBus.close();
    if (dataSource.isInitialized) await dataSource.destroy();
    throw error;
  }
}

/**
 * SIGTERM / SIGINT stop Baton in order — the demo executor first, while the engine still answers
 * its last heartbeat (draining, nothing in flight: a graceful stop, DOWN without an alarm), then
 * the engine and the console — and end the process as the signal would have. Nest's own shutdown
 * hooks closed the app first: the executor's row stayed UP, and the next start raised a CRITICAL
 * "Executor demo … is DOWN: no heartbeat" for it (issue 24). Returns the listeners' removal.
 */
function onStopSignal(close: () => Promise<void>): () => void {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  const onSignal = (signal: NodeJS.Signals) => {
    void close()
      .catch((error: unknown) => console.error(error))
      .finally(() => process.kill(process.pid, signal));
  };
  const remove = () => signals.forEach((signal) => process.off(signal, onSignal));
  signals.forEach((signal) => process.once(signal, onSignal));
  return remove;
}

function startDemoExecutor(tenant: TenantEntity, engineUrl: string, config: EmbeddedConfig, logger: BusLogger): ExecutorServer {
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
    logger,
  });
}
