import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../..');

/**
 * The second database topology of issue 25: a MariaDB primary and its replica
 * (scripts/mariadb-replica.sh, nodes on 18921 and 18922) behind their own HAProxy
 * (scripts/haproxy.sh with BATON_HAPROXY_DATABASE=replica: the one server with read_only=OFF).
 * Ports 18920-18959, apart from the Galera set's (18300-18499), so both can run.
 */
export const REPLICA_PORTS = { base: 18920, database: 18940, stats: 18941, consoles: 18950, consoleBackends: [18951, 18952] } as const;

export interface ReplicaServersOptions {
  /** Semi-synchronous replication (default): a commit the primary answered is on the replica. */
  semiSync: boolean;
}

export class ReplicaServers {
  readonly databaseServerUrl = `mysql://baton:baton@127.0.0.1:${REPLICA_PORTS.database}/`;
  private readonly lease = String(process.pid);

  private constructor(private readonly env: Record<string, string>) {}

  static async start(options: ReplicaServersOptions, log: (line: string) => void): Promise<ReplicaServers> {
    const servers = new ReplicaServers({
      BATON_REPLICA_BASE_PORT: String(REPLICA_PORTS.base),
      BATON_REPLICA_SEMI_SYNC: options.semiSync ? 'on' : 'off',
      BATON_HAPROXY_DATABASE: 'replica',
      BATON_HAPROXY_REPLICA_PORTS: `${REPLICA_PORTS.base + 1} ${REPLICA_PORTS.base + 2}`,
      BATON_HAPROXY_DB_PORT: String(REPLICA_PORTS.database),
      BATON_HAPROXY_STATS_PORT: String(REPLICA_PORTS.stats),
      BATON_HAPROXY_CONSOLE_PORT: String(REPLICA_PORTS.consoles),
      BATON_HAPROXY_CONSOLE_PORTS: REPLICA_PORTS.consoleBackends.join(' '),
    });
    const started = Date.now();
    // start applies the replication mode to a pair already running too (scripts/mariadb-replica.sh).
    await servers.script('mariadb-replica.sh', ['start', '--lease', servers.lease]);
    await servers.script('haproxy.sh', ['start', '--lease', servers.lease]);
    log(`  replica servers up in ${Date.now() - started} ms: primary node ${await servers.primary()} + replica (semi-sync ${options.semiSync ? 'on' : 'off'}) behind HAProxy ${servers.databaseServerUrl}`);
    return servers;
  }

  private async script(name: string, args: string[]): Promise<string> {
    try {
      const { stdout } = await run('bash', [resolve(ROOT, 'scripts', name), ...args], { cwd: ROOT, env: { ...process.env, ...this.env }, timeout: 5 * 60_000, maxBuffer: 16 << 20 });
      return stdout.trim();
    } catch (err) {
      const e = err as Error & { stderr?: string };
      throw new Error(`scripts/${name} ${args.join(' ')} failed: ${e.message}\n${(e.stderr ?? '').split('\n').slice(-30).join('\n')}`);
    }
  }

  /** The node (1 or 2) that is the primary now. */
  async primary(): Promise<number> {
    return Number(await this.script('mariadb-replica.sh', ['primary']));
  }

  /** The node HAProxy sends every connection to now (1 or 2). */
  async writer(): Promise<number> {
    return Number((await this.script('haproxy.sh', ['writer'])).replace('node', ''));
  }

  /** SIGKILL of the primary; returns its node. */
  async killPrimary(): Promise<number> {
    const node = await this.primary();
    await this.script('mariadb-replica.sh', ['node', String(node), 'kill']);
    return node;
  }

  /**
   * The operator's promotion of the replica (its read_only=OFF moves HAProxy's connections).
   * Returns the transactions the dead primary had written to its binary log that the replica
   * never received (null: unknown), as the script reads them.
   */
  async promote(): Promise<{ notReceived: number | null }> {
    const out = await this.script('mariadb-replica.sh', ['promote']);
    const m = /not_received=(\d+)/.exec(out);
    return { notReceived: m ? Number(m[1]) : null };
  }

  /** Starts the former primary again: rebuilt as the new primary's replica. */
  async restartNode(node: number): Promise<void> {
    await this.script('mariadb-replica.sh', ['node', String(node), 'start', '--lease', this.lease]);
  }

  /** Drops this process's leases: what nobody else uses stops. */
  async release(): Promise<void> {
    await this.script('haproxy.sh', ['release', this.lease]).catch(() => undefined);
    await this.script('mariadb-replica.sh', ['release', this.lease]).catch(() => undefined);
  }
}
