import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../test/cluster/support/processes';

const run = promisify(execFile);
const MARIADB = join(ROOT, 'scripts/mariadb.sh');

/**
 * A MariaDB server of one benchmark alone, on its own port (data in .tmp/mariadb/<port>/), which
 * the benchmark may stop and start at will: never the shared server (3407) that other people's
 * tests and benchmarks use. Started without a lease, so `stop()` is ours to call.
 */
export class PrivateMariadb {
  private constructor(
    readonly port: number,
    readonly url: string,
  ) {}

  static async open(port: number): Promise<PrivateMariadb> {
    if (port === 3407) throw new Error('refusing to use port 3407: that is the shared test server');
    return new PrivateMariadb(port, await script(port, 'start'));
  }

  async start(): Promise<void> {
    await script(this.port, 'start');
  }

  async stop(): Promise<void> {
    await script(this.port, 'stop');
  }
}

async function script(port: number, command: string): Promise<string> {
  try {
    const { stdout } = await run('bash', [MARIADB, command], { cwd: ROOT, env: { ...process.env, BATON_MARIADB_PORT: String(port) }, encoding: 'utf8', timeout: 180_000 });
    return stdout.trim().split('\n').pop() ?? '';
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`BATON_MARIADB_PORT=${port} scripts/mariadb.sh ${command} failed: ${(e.stderr || e.message).trim()}`);
  }
}
