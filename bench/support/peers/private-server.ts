import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../../test/cluster/support/processes';

/**
 * A system's store for one peers run: scripts/redis.sh, scripts/postgres.sh or scripts/mariadb.sh
 * on its own port (data under .tmp/<name>/<port>/; never the shared MariaDB of port 3407), started
 * here and stopped here by the script, which signals only the PID it launched. Should the run end before `stop()` (Ctrl-C goes through bench/run.ts's
 * handler to process.exit; an error ends main), an exit hook stops the server synchronously.
 */
export class PeerServer {
  private stopped = false;
  private readonly onExit = () => this.stop();

  private constructor(
    readonly script: StoreScript,
    readonly port: number,
    readonly url: string,
    readonly pid: number,
  ) {
    process.once('exit', this.onExit);
  }

  static start(script: StoreScript, port: number): PeerServer {
    if (script === 'mariadb' && port === 3407) throw new Error('refusing port 3407: that is the shared test server');
    const url = run(script, port, 'start').trim().split('\n').pop() ?? '';
    const status = run(script, port, 'status');
    const pid = Number(/pid (\d+)/.exec(status)?.[1]);
    if (!pid) throw new Error(`scripts/${script}.sh status gave no pid: ${status}`);
    return new PeerServer(script, port, url, pid);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    process.removeListener('exit', this.onExit);
    try {
      run(this.script, this.port, 'stop');
    } catch (err) {
      console.error(`scripts/${this.script}.sh stop (port ${this.port}) failed: ${(err as Error).message}`);
    }
  }
}

type StoreScript = 'redis' | 'postgres' | 'mariadb';

/** The variable that gives each script its port. */
const PORT_ENV: Record<StoreScript, string> = { redis: 'BATON_REDIS_PORT', postgres: 'BATON_POSTGRES_PORT', mariadb: 'BATON_MARIADB_PORT' };

function run(script: StoreScript, port: number, command: string): string {
  const env = { ...process.env, [PORT_ENV[script]]: String(port) };
  return execFileSync('bash', [join(ROOT, `scripts/${script}.sh`), command], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 120_000 });
}
