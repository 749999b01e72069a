import { TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { insertTasks } from '../../test/cluster/support/seed';
import { demoExecutorCommand, goExecutorCommand, javaExecutorCommand, pythonExecutorCommand, type ExecutorCommand } from '../../test/protocol/executor-process';
import { cpuSeconds, machine, rssMb, writeResult } from '../support/infra';
import { insertRuns, pendingRun } from '../support/runs';
import { option, type Scenario } from '../support/scenario';
import { markdownTable, table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT } from './burst';

/**
 * The executors, one row each: how to start one (it must print `READY <url>`, read the BATON_*
 * variables and have a `noop` handler). Adding an executor kind is one line here.
 */
const EXECUTORS: ReadonlyArray<{ kind: string; what: string; command: (env: Record<string, string>) => ExecutorCommand }> = [
  { kind: 'node', what: 'Node SDK (apps/demo-executor)', command: demoExecutorCommand },
  { kind: 'python', what: 'examples/python-executor', command: pythonExecutorCommand },
  { kind: 'go', what: 'Go SDK (sdks/go/examples/demo-executor)', command: goExecutorCommand },
  { kind: 'java', what: 'Java SDK (sdks/java, dev.baton.examples.DemoExecutor)', command: javaExecutorCommand },
];

const RUNS = 3_000;
const TASKS = 30;
const LEAD_MS = 5_000;

interface OverheadCase {
  kind: string;
  what: string;
  runs: number;
  ended: number;
  succeeded: number;
  /** From the first dispatch to the last run recorded ended. */
  seconds: number;
  runsPerSec: number;
  executorCpuSec: number;
  cpuMsPerRun: number;
  engineCpuSec: number;
  executorRssMb: number;
}

/**
 * Executor overhead (issue 26 item 6): `--runs` runs (default 3,000) of `noop` due at the same
 * instant, inserted as PENDING rows (as the burst does) for one engine and ONE executor process
 * of each kind in turn, 16 workers each: runs per second from the first dispatch to the last run
 * ended (the executor at saturation — or whatever saturates first on this machine: the engine
 * and MariaDB share it) and CPU per run of the executor process (/proc/<pid>/stat, from just
 * before T to the end). Options: --runs=3000 --kinds=node,go.
 */
export const executorOverhead: Scenario = {
  name: 'executor-overhead',
  description: 'each executor kind (Node SDK, Python, Go, …) at saturation with a no-op handler: runs/s and executor CPU per run',
  quickSet: false,
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? RUNS);
    const kinds = option(args, 'kinds')?.split(',');
    const cases: OverheadCase[] = [];
    for (const e of EXECUTORS.filter((x) => !kinds || kinds.includes(x.kind))) {
      const missing = unavailable(e.command);
      if (missing) {
        log(`executor-overhead: ${e.kind} left out: ${missing}`);
        continue;
      }
      cases.push(await runCase(e.kind, e.what, e.command, runs, log));
    }
    const headers = ['executor', 'runs', 'ended', 's', 'runs/s', 'executor CPU s', 'CPU ms/run', 'engine CPU s', 'executor RSS MB'];
    const rows = cases.map((c) => [c.kind, c.runs, c.ended, c.seconds, c.runsPerSec, c.executorCpuSec, c.cpuMsPerRun, c.engineCpuSec, c.executorRssMb]);
    console.log(`\nExecutor overhead, ${runs} noop runs at once, 1 engine, 1 executor (16 workers)\n${table(headers, rows)}\n\n${markdownTable(headers, rows)}`);
    writeResult('executor-overhead.json', { machine: machine(), runs, cases });
    return cases.map((c) => [`executor-overhead ${c.kind}`, `${c.runsPerSec} runs/s, ${c.cpuMsPerRun} ms CPU/run (${c.ended}/${c.runs} ended)`]);
  },
};

/** Why an executor cannot be started here (its command fails to build or find it), or null. */
function unavailable(command: (env: Record<string, string>) => ExecutorCommand): string | null {
  try {
    command({});
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}

async function runCase(kind: string, what: string, command: (env: Record<string, string>) => ExecutorCommand, n: number, log: (s: string) => void): Promise<OverheadCase> {
  const c = await Cluster.open(`bovh-${kind}`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    const [engine] = await c.startEngines(1);
    const [executor] = await c.startExecutors(1, BURST_EXECUTOR_ENV, command);
    const taskIds = await insertTasks(c.ds, c.tenant, Array.from({ length: TASKS }, (_, i) => ({ name: `overhead-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop' })));
    const now = Date.now();
    const due = Math.ceil((now + LEAD_MS) / 1000) * 1000;
    await insertRuns(c.ds, Array.from({ length: n }, (_, i) => pendingRun(c.tenant, taskIds[i % TASKS], due, `o:${due}:${i}`, now)));
    await sleep(Math.max(0, due - Date.now() - 300));
    const cpu0 = cpuSeconds(executor.pid);
    const engineCpu0 = cpuSeconds(engine.pid);
    const deadline = due + 120_000;
    let ended = 0;
    while (Date.now() < deadline) {
      const rows: Array<{ ended: number | string | null }> = await c.ds.query(
        "SELECT SUM(state IN ('SUCCEEDED','FAILED','TIMED_OUT','CANCELLED','SKIPPED')) AS ended FROM runs WHERE tenant_id = ?",
        [c.tenant.id],
      );
      ended = Number(rows[0].ended ?? 0);
      if (ended >= n) break;
      await sleep(200);
    }
    const executorCpuSec = +(cpuSeconds(executor.pid) - cpu0).toFixed(2);
    const engineCpuSec = +(cpuSeconds(engine.pid) - engineCpu0).toFixed(2);
    const rss = +rssMb(executor.pid).toFixed(0);
    const times: Array<{ dispatched_at: number | string | null; finished_at: number | string | null; state: string }> = await c.ds.query(
      'SELECT dispatched_at, finished_at, state FROM runs WHERE tenant_id = ?',
      [c.tenant.id],
    );
    const first = Math.min(...times.map((t) => Number(t.dispatched_at ?? Infinity)));
    const last = Math.max(...times.map((t) => Number(t.finished_at ?? 0)));
    const seconds = +((last - first) / 1000).toFixed(2);
    const result: OverheadCase = {
      kind,
      what,
      runs: n,
      ended,
      succeeded: times.filter((t) => t.state === 'SUCCEEDED').length,
      seconds,
      runsPerSec: Math.round(ended / seconds),
      executorCpuSec,
      cpuMsPerRun: +((executorCpuSec * 1000) / Math.max(1, ended)).toFixed(3),
      engineCpuSec,
      executorRssMb: rss,
    };
    log(`executor-overhead ${kind}: ${ended}/${n} ended in ${seconds} s, ${result.runsPerSec} runs/s, executor ${executorCpuSec} s CPU (${result.cpuMsPerRun} ms/run), engine ${engineCpuSec} s`);
    failed = ended < n;
    return result;
  } finally {
    await c.close(failed);
  }
}
