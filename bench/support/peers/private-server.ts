import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../../test/cluster/support/processes';

/**
 * A peer's store for one benchmark run: scripts/redis.sh or scripts/postgres.sh on its own port
 * (data under .tmp/<name>/<port>/), started here and stopped here by the script, which signals only
 * the PID it launched. Should the run end before `stop()` (Ctrl-C goes through bench/run.ts's
 * handler to process.exit; an error ends main), an exit hook stops the server synchronously.
 */
export class PeerServer {
  private stopped = false;
  private readonly onExit = () => this.stop();

  private constructor(
    readonly script: 'redis' | 'postgres',
    readonly port: number,
    readonly url: string,
    readonly pid: number,
  ) {
    process.once('exit', this.onExit);
  }

  static start(script: 'redis' | 'postgres', port: number): PeerServer {
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

function run(script: string, port: number, command: string): string {
  const env = { ...process.env, [script === 'redis' ? 'BATON_REDIS_PORT' : 'BATON_POSTGRES_PORT']: String(port) };
  return execFileSync('bash', [join(ROOT, `scripts/${script}.sh`), command], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 120_000 });
}
