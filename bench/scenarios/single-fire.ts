import { isTerminal, type RunState } from '@baton/domain';
import { TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { invocationCheck } from '../../test/cluster/support/figures';
import { insertTasks } from '../../test/cluster/support/seed';
import { machine, writeResult, type Infra } from '../support/infra';
import { insertRuns, pendingRun } from '../support/runs';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT, stats, type StageStats } from './burst';

/**
 * Single fire (issue 11 item 3): runs due alone — LONE of them, SPACING_MS apart, each the only
 * run of its instant — and how late their handler starts (handler start − due, the executor's
 * own clock on this machine), on an idle cluster and while a burst of BURST other runs, due
 * just before the first of them, is in flight. Target: p99 ≤ 10 ms on 1 and 2 engines, burst
 * or not. Rows inserted as PENDING ahead of T (as the planner would, bench/support/runs.ts), so
 * the path measured is claim → due queue → dispatch → executor, the planner's look-ahead aside.
 */

const LONE = 60;
const SPACING_MS = 37; // not a divisor of anything the engine polls at
const BURST = 1000;
const BURST_TASKS = 10;

export interface SingleFireCase {
  engines: number;
  burst: number;
  lone: { started: StageStats; dispatched: StageStats };
  burstStarted: StageStats | null;
  duplicates: number;
  missing: number;
}

async function runCase(engines: number, burst: number, infra: Infra, log: (s: string) => void): Promise<SingleFireCase> {
  const c = await Cluster.open(`sf${engines}x${burst}`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    await c.startEngines(engines);
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    const [loneTask, ...burstTasks] = await insertTasks(
      c.ds,
      c.tenant,
      Array.from({ length: 1 + BURST_TASKS }, (_, i) => ({ name: i === 0 ? 'lone' : `burst-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop' })),
    );
    const now = Date.now();
    const due = Math.ceil((now + 4_000) / 1000) * 1000;
    // The lone runs start 15 ms after the burst's instant: the burst is queued ahead of them.
    const loneAt = (i: number) => due + 15 + i * SPACING_MS;
    await insertRuns(c.ds, [
      ...Array.from({ length: burst }, (_, i) => pendingRun(c.tenant, burstTasks[i % BURST_TASKS], due, `b:${i}`, now)),
      ...Array.from({ length: LONE }, (_, i) => pendingRun(c.tenant, loneTask, loneAt(i), `l:${i}`, now)),
    ]);
    if (Date.now() > due - 2_000) log(`  warning: seeding ended less than 2 s before T`);
    const n = burst + LONE;
    const deadline = due + 60_000 + n * 20;
    let runs = await c.runs();
    while (Date.now() < deadline) {
      await sleep(500);
      runs = await c.runs();
      if (runs.length >= n && runs.every((r) => isTerminal(r.state as RunState))) break;
    }
    const lone = runs.filter((r) => r.taskId === loneTask);
    const others = runs.filter((r) => r.taskId !== loneTask);
    const late = (rs: typeof runs, pick: (r: (typeof runs)[number]) => number | null) => rs.map((r) => (pick(r) === null ? NaN : pick(r)! - r.scheduledAt)).filter((v) => !Number.isNaN(v));
    await sleep(300); // the last record lines
    const check = invocationCheck(c.records(), runs.map((r) => r.id));
    const result: SingleFireCase = {
      engines,
      burst,
      lone: { started: stats(late(lone, (r) => r.startedAt)), dispatched: stats(late(lone, (r) => r.dispatchedAt)) },
      burstStarted: burst > 0 ? stats(late(others, (r) => r.startedAt)) : null,
      duplicates: check.duplicated.length,
      missing: check.missing.length,
    };
    failed = false;
    return result;
  } finally {
    await c.close(failed);
  }
}

export const singleFire: Scenario = {
  name: 'single-fire',
  description: `runs due alone (${LONE}, ${SPACING_MS} ms apart): handler-start lateness, idle and during a ${BURST}-run burst, 1 and 2 engines`,
  async run({ args, infra, log }) {
    const engineCounts = (option(args, 'engines') ?? '1,2').split(',').map(Number);
    const cases: SingleFireCase[] = [];
    for (const e of engineCounts) {
      for (const b of [0, BURST]) {
        log(`single-fire: ${e} engine(s), ${b ? `during a ${b}-run burst` : 'idle'}…`);
        cases.push(await runCase(e, b, infra, log));
      }
    }
    const rows = cases.map((r) => [r.engines, r.burst, r.lone.started.p50, r.lone.started.p90, r.lone.started.p99, r.lone.started.max, r.lone.dispatched.p99, r.burstStarted?.p99 ?? '-', r.duplicates, r.missing]);
    console.log(`Single fire — lateness of lone runs (ms, handler start − due; ${LONE} runs per case)\n${table(['eng', 'burst', 'p50', 'p90', 'p99', 'max', 'disp p99', 'burst p99', 'dup', 'missing'], rows)}\n`);
    writeResult('single-fire.json', { benchmark: 'single-fire', machine: machine(), lone: LONE, spacingMs: SPACING_MS, executorEnv: BURST_EXECUTOR_ENV, cases });
    return cases.map((r): [string, string] => [`single fire ${r.engines}e${r.burst ? ` +${r.burst} burst` : ''}`, `p50 ${r.lone.started.p50} ms, p99 ${r.lone.started.p99} ms, max ${r.lone.started.max} ms, dup ${r.duplicates}, missing ${r.missing}`]);
  },
};
