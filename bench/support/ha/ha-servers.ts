import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

import { CONFIG_VARIABLES } from '@baton/config';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../..');

/**
 * The highly available servers of `baton cluster --ha` and of the HA kills (bench `ha`,
 * test/ha): a three-node Galera cluster (scripts/galera.sh) behind HAProxy (scripts/haproxy.sh:
 * one writer, sticky; the consoles' front too) and two ActiveMQ brokers in a network
 * (scripts/activemq.sh). Their ports are the scripts' defaults.
 */
export const HA_PORTS = {
  database: 18340,
  consoles: 18350,
  consoleBackends: [18381, 18382],
  brokers: [
    { stomp: 18361, network: 18371 },
    { stomp: 18362, network: 18372, networkTo: '127.0.0.1:18371' },
  ],
} as const;

/**
 * The engines of the HA kills run at the product's liveness defaults (heartbeat 2 s, dead after
 * 8 s, lease 15 s), not at the cluster tests' fast takeover (dead after 2.5 s): a writer failover
 * holds every heartbeat for 1–3 s, which on a loaded machine went past 2.5 s and got a live engine
 * taken over in CI. What the kills show is that a failover takes no live engine over as deployed.
 */
export const HA_ENGINE_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  ['BATON_HEARTBEAT_MS', 'BATON_ENGINE_DEAD_AFTER_MS', 'BATON_LEASE_MS'].map((name) => [name, CONFIG_VARIABLES.find((v) => v.name === name)!.default!]),
);

function brokerEnv(i: number): Record<string, string> {
  const b = HA_PORTS.brokers[i];
  return {
    BATON_ACTIVEMQ_STOMP_PORT: String(b.stomp),
    BATON_ACTIVEMQ_NETWORK_PORT: String(b.network),
    ...('networkTo' in b ? { BATON_ACTIVEMQ_NETWORK_TO: b.networkTo } : {}),
  };
}

async function script(name: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run('bash', [resolve(ROOT, 'scripts', name), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 5 * 60_000, maxBuffer: 16 << 20 });
    return stdout.trim();
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`scripts/${name} ${args.join(' ')} failed: ${e.message}\n${(e.stderr ?? '').split('\n').slice(-30).join('\n')}`);
  }
}

/** The servers, leased to this process (scripts' --lease): released at the end, stopped when no other user is left. */
export class HaServers {
  readonly databaseServerUrl = `mysql://baton:baton@127.0.0.1:${HA_PORTS.database}/`;
  readonly brokerUrl = `failover:(${HA_PORTS.brokers.map((b) => `stomp://127.0.0.1:${b.stomp}`).join(',')})`;
  readonly consolesUrl = `http://127.0.0.1:${HA_PORTS.consoles}`;
  private readonly lease = String(process.pid);

  static async start(log: (line: string) => void): Promise<HaServers> {
    const servers = new HaServers();
    const started = Date.now();
    await Promise.all([
      script('galera.sh', ['start', '--lease', servers.lease]).then(() => script('haproxy.sh', ['start', '--lease', servers.lease])),
      ...HA_PORTS.brokers.map((_, i) => script('activemq.sh', ['start', '--lease', servers.lease], brokerEnv(i))),
    ]);
    log(`  HA servers up in ${Date.now() - started} ms: Galera ×3 behind HAProxy ${servers.databaseServerUrl}, brokers ${servers.brokerUrl}`);
    return servers;
  }

  /** The Galera node (1-3) HAProxy sends every connection to now. */
  async writer(): Promise<number> {
    return Number((await script('haproxy.sh', ['writer'])).replace('node', ''));
  }

  /** SIGKILL of the writer node; returns its number. */
  async killWriter(): Promise<number> {
    const node = await this.writer();
    await script('galera.sh', ['node', String(node), 'kill']);
    return node;
  }

  /** Starts a node again (it rejoins by IST). */
  async restartNode(node: number): Promise<void> {
    await script('galera.sh', ['node', String(node), 'start', '--lease', this.lease]);
  }

  /** SIGKILL of broker `i` (0 or 1). */
  killBroker(i: number): void {
    const pid = Number(readFileSync(resolve(ROOT, '.tmp/activemq', String(HA_PORTS.brokers[i].stomp), 'baton-activemq.pid'), 'utf8').trim());
    process.kill(pid, 'SIGKILL');
  }

  async restartBroker(i: number): Promise<void> {
    await script('activemq.sh', ['start', '--lease', this.lease], brokerEnv(i));
  }

  /** Drops this process's leases: what nobody else uses stops. */
  async release(): Promise<void> {
    await Promise.allSettled([
      script('haproxy.sh', ['release', this.lease]).then(() => script('galera.sh', ['release', this.lease])),
      ...HA_PORTS.brokers.map((_, i) => script('activemq.sh', ['release', this.lease], brokerEnv(i))),
    ]);
  }
}
