import { parseArgs } from 'node:util';
import { UsageError } from '../common/usage-error';

export interface ClusterOptions {
  /** Console port; 0: any free port. Default 8080. */
  consolePort: number;
  /** First engine's port, the others on the next ones; 0: any free port each. Default 8090. */
  enginePort: number;
  /** Engine nodes started. Default 2. */
  engines: number;
  /** Drop the cluster's database and state first. Default false. */
  fresh: boolean;
  /** Start the demo executor (and wait for a demo run to succeed). Default true. */
  executor: boolean;
  /**
   * Highly available: a three-node Galera cluster behind HAProxy instead of one MariaDB, two
   * ActiveMQ brokers in a network, two consoles behind HAProxy (ports 18300-18499). Default false.
   */
  ha: boolean;
  /**
   * With `--ha`, the database: `galera` (three nodes, any one the writer) or `replica` (a primary
   * and a semi-synchronous replica the operator promotes: scripts/mariadb-replica.sh). Default galera.
   */
  db: HaDatabase;
}

export type HaDatabase = 'galera' | 'replica';

export const CLUSTER_USAGE = `usage: baton cluster [--console-port N] [--engine-port N] [--engines N] [--fresh] [--no-executor] [--ha [--db=galera|replica]]`;

/** `baton cluster`'s command line. */
export function parseClusterOptions(args: string[]): ClusterOptions {
  let values;
  try {
    values = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        'console-port': { type: 'string', default: '8080' },
        'engine-port': { type: 'string', default: '8090' },
        engines: { type: 'string', default: '2' },
        fresh: { type: 'boolean', default: false },
        'no-executor': { type: 'boolean', default: false },
        ha: { type: 'boolean', default: false },
        db: { type: 'string', default: 'galera' },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.db !== 'galera' && values.db !== 'replica') throw new UsageError(`--db must be galera or replica (got "${values.db}")`);
  if (values.db !== 'galera' && !values.ha) throw new UsageError('--db is an option of --ha');
  const engines = integer('--engines', values.engines, 1, 16);
  const enginePort = integer('--engine-port', values['engine-port'], 0, 65535);
  if (enginePort > 0 && enginePort + engines - 1 > 65535) throw new UsageError(`--engine-port: ${enginePort} + ${engines} engines goes past port 65535`);
  return {
    consolePort: integer('--console-port', values['console-port'], 0, 65535),
    enginePort,
    engines,
    fresh: values.fresh,
    executor: !values['no-executor'],
    ha: values.ha,
    db: values.db,
  };
}

function integer(option: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new UsageError(`${option} must be an integer from ${min} to ${max} (got "${raw}")`);
  return value;
}
