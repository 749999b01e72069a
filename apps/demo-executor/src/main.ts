import { createExecutorServer } from '@baton/executor-sdk';
import { demoExecutorOptionsFromEnv } from './config';

/**
 * The demo executor on its own (see config.ts for the environment). Prints `READY <url>` on
 * stdout once it listens; SIGTERM/SIGINT stop it gracefully (exit 0).
 */
async function main(): Promise<void> {
  let options;
  try {
    options = demoExecutorOptionsFromEnv(process.env);
  } catch (err) {
    console.error(`demo executor: ${(err as Error).message}`);
    process.exit(2);
  }
  const executor = createExecutorServer(options);
  executor.events.on('heartbeat', (e) => {
    if (e.executorId >= 0) registered(e.engineUrl, e.executorId);
  });
  const url = await executor.start();
  process.stdout.write(`READY ${url}\n`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`demo executor: ${signal}, stopping gracefully`);
    executor.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`demo executor: stop failed: ${(err as Error).stack ?? String(err)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

let lastRegistration = '';
function registered(engineUrl: string, executorId: number): void {
  const key = `${engineUrl}#${executorId}`;
  if (key !== lastRegistration) console.error(`demo executor: registered with ${engineUrl} as executor ${executorId}`);
  lastRegistration = key;
}

main().catch((err: unknown) => {
  console.error(`demo executor: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
