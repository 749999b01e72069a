import { brokerOutage } from '../support/faults/broker-outage';
import type { FaultResult } from '../support/faults/common';
import { dbRestart } from '../support/faults/db-restart';
import { engineDbFault } from '../support/faults/engine-db-fault';
import { engineKill } from '../support/faults/engine-kill';
import { EXECUTOR_FAST_DOWN, executorKill } from '../support/faults/executor-kill';
import { slowLink } from '../support/faults/slow-link';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { barChartSvg } from '../support/svg';
import { table } from '../support/table';

/**
 * Faults (issue #6, scenario 6): each case starts its own cluster, injects one fault and
 * counts runs lost (never ended) and duplicated (a handler completed twice, or one attempt run
 * twice) from the executors' record files, and the recovery time. Cases (bench/support/faults/):
 * engine SIGKILL mid-burst, MariaDB restarted mid-run (a private server on its own port, never
 * the shared one), ActiveMQ stopped (a private broker; alarms lost / duplicated by id), executor
 * SIGKILL with runs in flight, an executor behind a slow link (a delaying TCP proxy), and one
 * engine of three whose database link is black-holed or slowed (FaultProxy), which is frozen
 * with SIGSTOP or whose clock is 5 s ahead (engine-db-fault.ts: early starts, lateness of its
 * runs, alarms).
 */

interface FaultCase {
  key: string;
  run(log: (s: string) => void): Promise<FaultResult>;
}

/** The private servers' ports (never the shared 3407 / 61613): `--db-port=`, `--stomp-port=`. */
function cases(full: boolean, args: readonly string[]): FaultCase[] {
  const dbPort = Number(option(args, 'db-port') ?? 3417);
  const stompPort = Number(option(args, 'stomp-port') ?? 61633);
  const outageMs = full ? 30_000 : 15_000;
  const list: Array<FaultCase & { full?: boolean }> = [
    { key: 'engine-kill', full: true, run: (log) => engineKill(4000, 'test', log) },
    { key: 'engine-kill-default', run: (log) => engineKill(4000, 'default', log) },
    { key: 'db-restart', run: (log) => dbRestart({ port: dbPort, rate: 20, spanMs: full ? 60_000 : 20_000, stopAfterMs: 6_000 }, log) },
    { key: 'broker-outage', run: (log) => brokerOutage({ port: stompPort, rate: 4, spanMs: outageMs + 10_000, stopAfterMs: 5_000, outageMs }, log) },
    { key: 'executor-kill', run: (log) => executorKill({ n: 64, sleepMs: 3_000, engineEnv: EXECUTOR_FAST_DOWN, label: 'down 3 s + grace 2 s' }, log) },
    { key: 'executor-kill-default', full: true, run: (log) => executorKill({ n: 64, sleepMs: 3_000, engineEnv: {}, label: 'default: down 10 s + grace 30 s' }, log) },
    { key: 'slow-link', run: (log) => slowLink({ n: full ? 2000 : 300, delayMs: 200 }, log) },
    { key: 'slow-link-1s', full: true, run: (log) => slowLink({ n: 500, delayMs: 1_000 }, log) },
    { key: 'db-hole', run: (log) => engineDbFault({ fault: { kind: 'db-hole' }, faultMs: 30_000, n: full ? 3000 : 1000, spanMs: 20_000 }, log) },
    { key: 'db-delay', run: (log) => engineDbFault({ fault: { kind: 'db-delay', delayMs: 2_000 }, faultMs: 30_000, n: full ? 3000 : 1000, spanMs: 20_000 }, log) },
    { key: 'clock-ahead', run: (log) => engineDbFault({ fault: { kind: 'clock-ahead', aheadMs: 5_000 }, faultMs: 20_000, n: full ? 3000 : 1000, spanMs: 20_000 }, log) },
    { key: 'sigstop', run: (log) => engineDbFault({ fault: { kind: 'sigstop' }, faultMs: 20_000, n: full ? 3000 : 1000, spanMs: 20_000 }, log) },
    { key: 'slow-link-3s', run: (log) => slowLink({ n: full ? 200 : 60, delayMs: 3_000, sleepMs: 4_000 }, log) },
  ];
  return list.filter((c) => full || !c.full);
}

/** Options: `--faults=engine-kill,db-restart,…` (only these cases), `--tag=-x` (result file suffix), `--db-port=`, `--stomp-port=`. */
export const faults: Scenario = {
  name: 'faults',
  description: 'engine/executor SIGKILL, MariaDB restart, ActiveMQ outage, slow executor link, an engine black-holed / slowed / frozen: lost, duplicated, recovery time',
  async run({ full, args, log }) {
    const only = option(args, 'faults')?.split(',');
    const picked = cases(full, args).filter((c) => !only || only.includes(c.key));
    const results: FaultResult[] = [];
    for (const c of picked) {
      log(`faults: ${c.key}…`);
      const r = await c.run(log);
      results.push(r);
      log(`  ${r.fault}: lost ${r.lost}, duplicated ${r.duplicated}, re-runs ${r.reRuns}, takeover ${r.takeoverMs ?? '-'} ms, recovery ${r.recoveryMs} ms\n  ${JSON.stringify(r.figures)}`);
    }
    const headers = ['fault', 'runs', 'lost', 'dup', 're-runs', 'takeover ms', 'recovery ms', 'states'];
    const rows = results.map((r) => [r.fault, r.runs, r.lost, r.duplicated, r.reRuns, r.takeoverMs ?? '-', r.recoveryMs, Object.entries(r.states).map(([k, v]) => `${k}:${v}`).join(' ')]);
    console.log(`\nFaults — lost / duplicated runs and recovery (target: 0 / 0, engine takeover ≤ 10 s)\n${table(headers, rows)}\n`);
    const tag = option(args, 'tag') ?? (only ? '-custom' : '');
    writeResult(`faults${tag}.json`, { benchmark: 'faults', quick: !full, machine: machine(), results });
    writeResult(
      `faults${tag}.svg`,
      barChartSvg({
        title: 'Faults: takeover and recovery time (ms)',
        unit: 'ms',
        categories: results.map((r) => r.fault),
        series: [
          { name: 'takeover', values: results.map((r) => r.takeoverMs ?? NaN) },
          { name: 'recovery', values: results.map((r) => r.recoveryMs) },
        ],
        lines: [{ label: 'takeover target 10 s', value: 10_000 }],
      }),
    );
    return results.map((r): [string, string] => [`faults: ${r.fault}`, `lost ${r.lost}, dup ${r.duplicated}, re-runs ${r.reRuns}, takeover ${r.takeoverMs ?? '-'} ms, recovery ${r.recoveryMs} ms`]);
  },
};
