import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../cluster/support/engine-http';

/** One alert as Prometheus's GET /api/v1/alerts lists it. */
export interface PrometheusAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

/** One series of an instant query's answer (GET /api/v1/query, resultType vector). */
export interface PrometheusSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * A real Prometheus (Debian's `prometheus` package: /usr/bin/prometheus) for a test, in `dir`:
 * its prometheus.yml, its TSDB and its log. It listens on 127.0.0.1 on a free port, scrapes
 * `targets` as job `job` every `intervalSeconds` and evaluates `rulesFile` as often. Stopped by
 * its PID (`stop`: SIGTERM, SIGKILL after 5 s), and SIGKILLed if the test worker exits first.
 */
export class PrometheusServer {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    readonly logFile: string,
  ) {}

  static async start(options: { dir: string; job: string; targets: string[]; rulesFile: string; intervalSeconds: number }): Promise<PrometheusServer> {
    const port = await freePort();
    const interval = `${options.intervalSeconds}s`;
    const config = [
      'global:',
      `  scrape_interval: ${interval}`,
      `  scrape_timeout: ${interval}`,
      `  evaluation_interval: ${interval}`,
      'rule_files:',
      `  - ${JSON.stringify(options.rulesFile)}`,
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(options.job)}`,
      '    static_configs:',
      `      - targets: ${JSON.stringify(options.targets)}`,
      '',
    ].join('\n');
    const configFile = join(options.dir, 'prometheus.yml');
    writeFileSync(configFile, config);
    const logFile = join(options.dir, 'prometheus.log');
    const log = createWriteStream(logFile);
    const child = spawn(
      'prometheus',
      [`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, `--storage.tsdb.path=${join(options.dir, 'tsdb')}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    void exited.then(() => process.off('exit', killOnExit));
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, child, exited, logFile);
    // Ready: it has loaded its configuration and rules and answers queries (GET /-/ready is 200).
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}) before it was ready; its log: ${logFile}`);
      const ready = await fetch(`${server.url}/-/ready`).then((r) => r.ok, () => false);
      if (ready) return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`prometheus was not ready within 30 s; its log: ${logFile}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** GET /api/v1/alerts: the pending and firing alerts. */
  async alerts(): Promise<PrometheusAlert[]> {
    return (await this.api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts;
  }

  /** GET /api/v1/query: an instant query's series (an expression whose result is a vector). */
  async query(expr: string): Promise<PrometheusSample[]> {
    return (await this.api<{ resultType: string; result: PrometheusSample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result;
  }

  /** SIGTERM by its PID, SIGKILL after 5 s; resolves when it has exited. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(killer);
  }

  private async api<T>(path: string): Promise<T> {
    const res = await fetch(`${this.url}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${res.status} ${body.error ?? ''}`);
    return body.data;
  }
}
