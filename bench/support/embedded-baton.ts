import { join, resolve } from 'node:path';
import { REGISTER_TS, ROOT, startReadyProcess, type OwnedProcess } from '../../test/cluster/support/processes';

/** `npm start`'s process as a benchmark runs it: its console's URL (the engine's too) and the demo tenant's executor secret. */
export interface EmbeddedBaton {
  process: OwnedProcess;
  url: string;
  secret: string;
}

/**
 * Starts Baton in embedded mode (console, engine and demo executor in one process, on an SQLite
 * file in `dir`) and waits for its banner. `env`: settings beyond the bench's (a profile's preload).
 */
export async function startEmbeddedBaton(dir: string, env: Record<string, string> = {}): Promise<EmbeddedBaton> {
  const { process, ready } = await startReadyProcess({
    name: 'embedded',
    env: { BATON_DB_URL: `sqlite:${join(dir, 'baton.sqlite')}`, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1', ...env },
    logFile: join(dir, 'embedded.log'),
    args: ['-r', REGISTER_TS, resolve(ROOT, 'apps/embedded/src/main.ts')],
    ready: /engine\s+(http:\/\/\S+)[\s\S]*?BATON_EXECUTOR_SECRET=([0-9a-f]+)/,
    what: 'embedded Baton',
  });
  return { process, url: ready[1], secret: ready[2] };
}
