import { executorOptionsFromEnv } from './env/executor-options-from-env';
import type { AnyTaskHandler } from './handler';
import type { ExecutorLogger, ExecutorOptions } from './options';
import { flushSpans } from './run-trace';
import { createExecutorServer, type ExecutorServer } from './server';

/**
 * Runs an executor as the process's main job: starts it, logs `executor <app> of tenant <t>
 * listening on <url>, engines <urls>`, and on SIGTERM/SIGINT stops gracefully (running handlers
 * get `shutdownGraceMs`, pending callbacks are flushed or stay spooled) and exits 0; a second
 * signal during the drain ends the process at once (Node's default). A bad option or a failed
 * start logs the message and exits 1.
 *
 *     runExecutor(hello, report);                                         // options from BATON_* variables
 *     runExecutor({ ...executorOptionsFromEnv(), handlers: [hello], concurrency: 8 });
 *
 * Resolves with the started server (for its URL or events); never rejects.
 */
export async function runExecutor(options: ExecutorOptions | AnyTaskHandler, ...more: AnyTaskHandler[]): Promise<ExecutorServer> {
  const given = isHandler(options) ? undefined : options?.logger;
  // logger false silences the SDK's routine lines; a failed start is still worth one line on stderr.
  const logger: ExecutorLogger = given === false ? { info: () => undefined, warn: () => undefined, error: (m) => console.error(m) } : (given ?? console);
  let executor: ExecutorServer;
  let listening: string;
  try {
    const resolved: ExecutorOptions = isHandler(options) ? { ...executorOptionsFromEnv(), handlers: [options, ...more] } : options;
    executor = createExecutorServer(resolved);
    const url = await executor.start();
    listening = `executor ${resolved.app} of tenant ${resolved.tenantId} listening on ${url}, engines ${resolved.engineUrls.join(', ')}`;
  } catch (err) {
    logger.error(`executor: ${(err as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info(`executor: ${signal}, stopping gracefully`);
    // The spans of its last runs leave before the process does (the application's tracer provider, if any).
    executor.stop().then(
      () => flushSpans().then(() => process.exit(0)),
      (err: unknown) => {
        logger.error(`executor: stop failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // After the handlers: a supervisor that signals as soon as it reads this line must find them.
  logger.info(listening);
  return executor;
}

function isHandler(value: unknown): value is AnyTaskHandler {
  return typeof value === 'object' && value !== null && typeof (value as AnyTaskHandler).run === 'function';
}
