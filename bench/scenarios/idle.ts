import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { CpuMeter } from '../support/cpu-meter';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { BURST_EXECUTOR_ENV } from './burst';

/**
 * What an idle cluster costs (issue 22): `--engines` engine processes (default 2) at the engine's
 * own defaults — not the cluster tests' faster heartbeats — and 2 demo executors, nothing due, for
 * `--seconds` (default 10) after a 3 s settle: each process's CPU as a share of one core
 * (/proc), and the statements the engines send MariaDB per second (SHOW GLOBAL STATUS counters,
 * server-wide: the server is this benchmark's alone). It is the floor under every other figure:
 * the polling loops (claims, liveness, watchdog, planner, alarm relay, heartbeats) run whether or
 * not runs are due, and a burst's "CPU per run" carries their share of its lead.
 */

/** The engine's defaults where the cluster harness sets faster ones (ENGINE_TEST_ENV). */
const ENGINE_DEFAULTS_ENV: Record<string, string> = {
  BATON_HEARTBEAT_MS: '2000',
  BATON_ENGINE_DEAD_AFTER_MS: '8000',
  BATON_LEASE_MS: '15000',
  BATON_WATCHDOG_INTERVAL_MS: '500',
};

const COUNTERS = ['Questions', 'Com_select', 'Com_update', 'Com_insert', 'Com_commit', 'Handler_update', 'Handler_write'] as const;

export const idle: Scenario = {
  name: 'idle',
  description: "an idle cluster at the engine's defaults: CPU per process (% of a core) and statements per second",
  options: '--engines=2 --seconds=10 --tag=…',
  quickSet: false,
  async run({ args, infra, log }) {
    const engines = Number(option(args, 'engines') ?? 2);
    const seconds = Number(option(args, 'seconds') ?? 10);
    const c = await Cluster.open(`idle${engines}`);
    let failed = true;
    try {
      const engineProcs = await c.startEngines(engines, ENGINE_DEFAULTS_ENV);
      const executors = await c.startExecutors(2, BURST_EXECUTOR_ENV);
      log(`idle: ${engines} engine(s), 2 executors, nothing due; settling 3 s, then ${seconds} s measured…`);
      await sleep(3_000);
      const cpu = new CpuMeter({ ...(infra.mariadbPid ? { mariadb: infra.mariadbPid } : {}), ...Object.fromEntries([...engineProcs, ...executors].map((p) => [p.name, p.pid])) });
      const before = await counters(c);
      await sleep(seconds * 1000);
      const after = await counters(c);
      const used = cpu.used();
      const percent = Object.fromEntries(Object.entries(used).map(([k, v]) => [k, +((100 * v) / seconds).toFixed(1)]));
      const perSecond = Object.fromEntries(COUNTERS.map((k) => [k, +((after[k] - before[k]) / seconds).toFixed(1)]));
      console.log(`\nIdle cluster, ${engines} engine(s) at their defaults, 2 executors, ${seconds} s\n${table(['process', '% of a core'], Object.entries(percent).map(([k, v]) => [k, v]))}`);
      console.log(`\nMariaDB counters per second (server-wide)\n${table(['counter', 'per s'], Object.entries(perSecond).map(([k, v]) => [k, v]))}\n`);
      writeResult(`idle${option(args, 'tag') ?? ''}.json`, { benchmark: 'idle', machine: machine(), engines, seconds, engineEnv: ENGINE_DEFAULTS_ENV, cpuPercentOfACore: percent, perSecond });
      failed = false;
      const enginesPercent = engineProcs.reduce((sum, p) => sum + percent[p.name], 0);
      return [[`idle ${engines} engines`, `engines ${enginesPercent.toFixed(1)} % of a core, MariaDB ${percent.mariadb ?? '–'} %, ${perSecond.Questions} statements/s`]];
    } finally {
      await c.close(failed);
    }
  },
};

async function counters(c: Cluster): Promise<Record<string, number>> {
  const rows: Array<{ Variable_name: string; Value: string }> = await c.ds.query(`SHOW GLOBAL STATUS WHERE Variable_name IN (${COUNTERS.map(() => '?').join(', ')})`, [...COUNTERS]);
  return Object.fromEntries(rows.map((r) => [r.Variable_name, Number(r.Value)]));
}
