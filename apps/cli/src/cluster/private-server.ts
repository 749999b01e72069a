import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { PrefixedOutput } from './prefixed-output';

/**
 * A private server of scripts/ (mariadb.sh, activemq.sh, and for `--ha` galera.sh, haproxy.sh:
 * data under .tmp/, 127.0.0.1 only). Their log lines go to the cluster's output under `name`;
 * `start` and `url` print the server's URL on stdout. `script` (default `<name>.sh`) and `env`
 * (ports) pick one of several servers of a kind (the two brokers of `--ha`).
 */
export class PrivateServer {
  /** True once this cluster started it: only then does the cluster stop it. */
  startedHere = false;

  constructor(
    readonly name: string,
    private readonly root: string,
    private readonly output: PrefixedOutput,
    private readonly options: { script?: string; env?: Record<string, string> } = {},
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
    const file = join(this.root, 'scripts', this.options.script ?? `${this.name}.sh`);
    return new Promise((resolve, reject) => {
      // Its own process group: a Ctrl-C on the terminal must not interrupt a start or stop half-way.
      const child = spawn('bash', [file, command], { cwd: this.root, env: { ...process.env, ...this.options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      this.output.follow(this.name, child.stderr);
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code !== null && okCodes.includes(code)) resolve({ code, stdout });
        else reject(new Error(`scripts/${this.options.script ?? `${this.name}.sh`} ${command} failed (exit code ${code}); its output is above`));
      });
    });
  }
}
