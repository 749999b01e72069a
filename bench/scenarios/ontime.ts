import { execFileSync } from 'node:child_process';
import { TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { invocationCheck } from '../../test/cluster/support/figures';
import { insertTasks, seedTenant } from '../../test/cluster/support/seed';
import { machine, writeResult } from '../support/infra';
import { waitAllEnded } from '../support/faults/common';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT, stats, type StageStats } from './burst';
import { consoleOn, createOnceTasks } from './burst-api';

/**
 * On-time fires under load (issue 22 item 3): tenant `lone`'s FIXED_RATE task fires every
 * INTERVAL_MS (on its own executor, SDK defaults) while tenant `acme` sends a burst of N ONCE
 * tasks due at one instant T, created through the public API (`POST /api/tasks/batch`, the
 * console in this process), on 2 executors with the burst scenario's opened settings. Lateness of
 * each of lone's fires = its handler's start (the executor's record) − its scheduled instant,
 * split into the fires during the burst's work — from the first POST creating its tasks (the
 * engines plan, claim and send runs up to BATON_LOOK_AHEAD_MS / BATON_SEND_AHEAD_MS ahead of
 * their instant, so the work begins then) to the burst's last outcome — and the IDLE_MS before
 * (the same cluster idle). Target: p99 ≤ 10 ms during a 4,000-run burst. From the run rows, where
 * the time goes: scheduled → dispatched_at (the request left the engine: its timer, the
 * DISPATCHED mark's commit) and dispatched_at → handler start (HTTP, the executor).
 */

const INTERVAL_MS = 97; // ~100 ms, not a divisor of the burst's round-second instant nor of any poll
const LONE_TENANT = 'lone';
/** Lone fires alone before the burst's tasks are created. */
const IDLE_MS = 3_000;

export interface OnTimeCase {
  n: number;
  engines: number;
  /** Lone's fires during the burst: handler start − scheduled. */
  during: StageStats;
  /** Lone's fires before T (idle cluster). */
  idle: StageStats;
  /** During the burst: scheduled → the request left (dispatched_at), and dispatched_at → handler start. */
  toDispatched: StageStats;
  dispatchedToStarted: StageStats;
  /** The burst's own handler starts − T. */
  burst: StageStats;
  burstSpanMs: number;
  duplicates: number;
  missing: number;
}

async function runCase(n: number, engines: number, engineEnv: Record<string, string>, loneNice: number | undefined, log: (s: string) => void): Promise<OnTimeCase> {
  const c = await Cluster.open(`ot${n}x${engines}`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    const lone = await seedTenant(c.ds, { id: LONE_TENANT, engineGroup: c.tenant.engineGroup });
    await c.startEngines(engines, engineEnv);
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    const loneExecutor = await c.startExecutorOf(lone, 'lone-executor');
    // --lone-nice: the lone tenant's executor as if on a host of its own, not queued for a core behind the burst's executors.
    if (loneNice !== undefined) execFileSync('renice', ['-n', String(loneNice), '-p', String(loneExecutor.pid)], { stdio: 'ignore' });
    const api = await consoleOn(c);
    try {
      const loneFrom = Date.now() + 500;
      const due = Math.ceil((loneFrom + IDLE_MS + 6_000 + n) / 1000) * 1000;
      // Lone fires alone for IDLE_MS (the idle figures), then through the burst's work to 6 s after T (the burst is over by then).
      const [loneTask] = await insertTasks(c.ds, lone, [{ name: 'every-97ms', trigger: { kind: 'FIXED_RATE', intervalMs: INTERVAL_MS }, handler: 'noop', startAt: loneFrom + 3, endAt: due + 6_000 }]);
      await sleep(Math.max(0, loneFrom + IDLE_MS - Date.now()));
      const burstWorkFrom = Date.now();
      await createOnceTasks(api, n, 'burst', due);
      if (Date.now() > due - 2_500) log(`  warning: creating the tasks ended ${due - Date.now()} ms before T`);
      await sleep(Math.max(0, due - Date.now()));
      await waitAllEnded(c, n, { timeoutMs: 60_000 + n * 20, stallMs: 30_000, log });
      await sleep(Math.max(0, due + 6_500 - Date.now()));
      await sleep(300); // the last record lines
      const burstRuns = await c.runs();
      const burstRecords = c.records();
      const burstStarts = burstRecords.map((r) => r.at - due);
      const burstEnd = due + Math.max(...burstStarts);
      const burstOver = Math.max(burstEnd, ...burstRuns.map((r) => r.finishedAt ?? 0));
      const loneRecords = c.records([loneExecutor]);
      const startOf = new Map(loneRecords.map((r) => [r.runId, r.at]));
      const loneRuns = (await c.ds.query('SELECT id, scheduled_at AS s, dispatched_at AS d FROM runs WHERE tenant_id = ? AND task_id = ?', [lone.id, loneTask])) as Array<{ id: number; s: string; d: string | null }>;
      const fires = loneRuns.map((r) => ({ id: Number(r.id), scheduled: Number(r.s), dispatched: r.d === null ? null : Number(r.d), started: startOf.get(Number(r.id)) ?? null }));
      const during = fires.filter((f) => f.scheduled >= burstWorkFrom && f.scheduled <= burstOver);
      const idle = fires.filter((f) => f.scheduled < burstWorkFrom);
      const late = (fs: typeof fires) => fs.filter((f) => f.started !== null).map((f) => f.started! - f.scheduled);
      const check = invocationCheck([...burstRecords, ...loneRecords.map((r) => ({ ...r, executor: 'lone' }))], [...burstRuns.map((r) => r.id), ...fires.map((f) => f.id)]);
      const result: OnTimeCase = {
        n,
        engines,
        during: stats(late(during)),
        idle: stats(late(idle)),
        toDispatched: stats(during.filter((f) => f.dispatched !== null).map((f) => f.dispatched! - f.scheduled)),
        dispatchedToStarted: stats(during.filter((f) => f.dispatched !== null && f.started !== null).map((f) => f.started! - f.dispatched!)),
        burst: stats(burstStarts),
        burstSpanMs: burstEnd - due,
        duplicates: check.duplicated.length,
        missing: check.missing.length + during.filter((f) => f.started === null).length,
      };
      log(`  during the burst: ${during.length} fires, p50 ${result.during.p50} ms, p99 ${result.during.p99} ms, max ${result.during.max} ms`);
      failed = false;
      return result;
    } finally {
      await api.app.close();
    }
  } finally {
    await c.close(failed);
  }
}

/**
 * Options: `--cases=4000x2` (burst N x engines; quick 4000x2, full 4000x1,4000x2), `--engine-env=K=V,…`,
 * `--lone-nice=-10` (renice the lone tenant's executor: on 2 shared cores it otherwise waits for a core
 * behind the burst tenant's executors, which production hosts apart), `--tag=` (result file suffix).
 */
export const ontime: Scenario = {
  name: 'ontime',
  description: `on-time fires under load: another tenant's FIXED_RATE task (every ${INTERVAL_MS} ms) during a 4,000-run burst created through the API — its fires' lateness p50/p99`,
  async run({ full, args, log }) {
    const plan = option(args, 'cases')?.split(',').map((c) => c.split('x').map(Number) as [number, number]) ?? (full ? [[4000, 1], [4000, 2]] : [[4000, 2]]);
    const engineEnv = Object.fromEntries((option(args, 'engine-env') ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
    const nice = option(args, 'lone-nice');
    const loneNice = nice === undefined ? undefined : Number(nice);
    const cases: OnTimeCase[] = [];
    for (const [n, e] of plan) {
      log(`ontime: ${n}-run burst through the API, ${e} engine(s), a fire of another tenant every ${INTERVAL_MS} ms…`);
      cases.push(await runCase(n, e, engineEnv, loneNice, log));
    }
    const rows = cases.map((r) => [r.n, r.engines, r.during.n, r.during.p50, r.during.p90, r.during.p99, r.during.max, `${r.toDispatched.p50} / ${r.toDispatched.p99}`, `${r.dispatchedToStarted.p50} / ${r.dispatchedToStarted.p99}`, `${r.idle.p50} / ${r.idle.p99}`, r.burst.p99, r.burstSpanMs, r.duplicates, r.missing]);
    console.log(
      `On time under load — lateness of another tenant's fires during the burst (ms, handler start − scheduled)\n${table(['N', 'eng', 'fires', 'p50', 'p90', 'p99', 'max', '→dispatched p50/p99', 'dispatched→start p50/p99', 'idle p50/p99', 'burst p99', 'burst span', 'dup', 'missing'], rows)}\n`,
    );
    writeResult(`ontime${option(args, 'tag') ?? ''}.json`, { benchmark: 'ontime', machine: machine(), intervalMs: INTERVAL_MS, engineEnv, loneNice: loneNice ?? null, cases });
    return cases.map((r): [string, string] => [`on time ${r.engines}e +${r.n} burst`, `p50 ${r.during.p50} ms, p99 ${r.during.p99} ms (${r.during.n} fires), idle p99 ${r.idle.p99} ms, dup ${r.duplicates}, missing ${r.missing}`]);
  },
};
