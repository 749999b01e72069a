import { runExecutor } from '@baton/executor-sdk';
import { unknownVariableWarnings } from '@baton/config';
import { createLogger, type LogLevel } from '@baton/logging';
import { startTracing } from '@baton/tracing';
import { demoExecutorOptionsFromEnv } from './config';

/**
 * The demo executor on its own (see config.ts for the environment), run by the SDK's
 * runExecutor (SIGTERM/SIGINT stop it gracefully, exit 0; a failed start exits 1). Prints
 * `READY <url>` on stdout once it listens (tests and benches wait for it); logs go to stderr as
 * pino lines (level `BATON_LOG_LEVEL`, default info).
 */
const log = createLogger({ process: 'executor', fd: 2, level: (process.env.BATON_LOG_LEVEL?.trim() || 'info') as LogLevel });

async function main(): Promise<void> {
  startTracing('baton-demo-executor');
  for (const warning of unknownVariableWarnings(process.env)) log.warn(warning);
  let options;
  try {
    options = demoExecutorOptionsFromEnv(process.env, { info: (m, f) => log.info(f ?? {}, m), warn: (m, f) => log.warn(f ?? {}, m), error: (m, f) => log.error(f ?? {}, m) });
  } catch (err) {
    console.error(`demo executor: ${(err as Error).message}`);
    process.exit(2);
  }
  const executor = await runExecutor(options);
  executor.events.on('heartbeat', (e) => {
    if (e.executorId >= 0) registered(e.engineUrl, e.executorId);
  });
  process.stdout.write(`READY ${executor.url}\n`);
}

let lastRegistration = '';
function registered(engineUrl: string, executorId: number): void {
  const key = `${engineUrl}#${executorId}`;
  if (key !== lastRegistration) log.info({ engineUrl, executorId }, 'registered');
  lastRegistration = key;
}

main().catch((err: unknown) => {
  console.error(`demo executor: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
