import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { PrefixedOutput } from './prefixed-output';

/**
 * The private MariaDB or ActiveMQ of scripts/ (mariadb.sh, activemq.sh: data under .tmp/,
 * 127.0.0.1 only). Their log lines go to the cluster's output under `name`; `start` prints the
 * server's URL on stdout.
 */
export class PrivateServer {
  /** True once this cluster started it: only then does the cluster stop it. */
  startedHere = false;

  constructor(
    readonly name: 'mariadb' | 'activemq',
    private readonly root: string,
    private readonly output: PrefixedOutput,
  ) {}

  /** Installs it with apt when missing (as root; otherwise fails naming the command to run), then starts it unless it runs already; returns its URL. */
  async ensureRunning(): Promise<string> {
    await this.script('ensure-installed');
    const status = await this.script('status', [0, 3]);
    if (status.code === 3) {
      this.startedHere = true;
      return (await this.script('start')).stdout.trim();
    }
    return (await this.script('url')).stdout.trim();
  }

  /** Stops it if this cluster started it. */
  async stopIfStartedHere(): Promise<void> {
    if (this.startedHere) await this.script('stop');
  }

  private script(command: string, okCodes: readonly number[] = [0]): Promise<{ code: number; stdout: string }> {
    const file = join(this.root, 'scripts', `${this.name}.sh`);
    return new Promise((resolve, reject) => {
      // Its own process group: a Ctrl-C on the terminal must not interrupt a start or stop half-way.
      const child = spawn('bash', [file, command], { cwd: this.root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      this.output.follow(this.name, child.stderr);
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code !== null && okCodes.includes(code)) resolve({ code, stdout });
        else reject(new Error(`scripts/${this.name}.sh ${command} failed (exit code ${code}); its output is above`));
      });
    });
  }
}
