import { startedEarlyBy } from '@baton/domain';
import { EXECUTOR_DEFAULTS } from '@baton/executor-sdk';
import { RunEntity, TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { burstFigures } from '../../test/cluster/support/burst';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { percentile } from '../../test/cluster/support/figures';
import { insertTasks } from '../../test/cluster/support/seed';
import { cpuSeconds, machine, rssMb, writeResult, type Infra } from '../support/infra';
import { barChartSvg } from '../support/svg';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { RESULTS_DIR } from '../support/infra';
import { startOtlpSink, tracingEnv } from '../support/otlp-sink';
import { insertRuns, pendingRun } from '../support/runs';

/**
 * Burst: N runs due at the same instant T, on 1..k engine processes and 2 demo-executor
 * processes (handler `noop`). The runs are inserted directly as PENDING rows (distinct fire
 * keys, spread over TASKS tasks of trigger MANUAL so the planner never touches them), T a few
 * seconds ahead, so the engines claim them into their calendar queues before T: this isolates
 * the claim → dispatch → ack → callback path from the planner. Lateness per stage is read from
 * the run rows; duplicates and missing runs from the executors' own record files.
 */

/** Runs per task: ≤ 200 keeps every task-queue token bucket (default burst 1000) out of the way. */
const TASKS_PER_1000 = 10;

/** Bench configuration (said in docs/BENCHMARKS.md): the throttles that are policy, not engine cost, are opened. */
export const BURST_TENANT = { ratePerSec: 100_000, burst: 100_000 };
export const BURST_EXECUTOR_ENV = { BATON_EXECUTOR_CONCURRENCY: '16', BATON_EXECUTOR_QUEUE_LIMIT: '20000' };

export interface StageStats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface BurstCase {
  n: number;
  engines: number;
  seedMs: number;
  stages: { dispatched: StageStats; accepted: StageStats; started: StageStats; recorded: StageStats };
  /** Runs whose handler started more than EARLY_START_TOLERANCE_MS (20 ms) before their instant (executor-reported start times). */
  earlyStarts: number;
  makespanDispatchMs: number;
  makespanMs: number;
  dispatchRatePerSec: number;
  states: Record<string, number>;
  invocations: number;
  duplicates: number;
  missing: number;
  byEngine: Record<string, number>;
  byExecutor: Record<string, number>;
  cpuSec: Record<string, number>;
  /** MariaDB statement counters (SHOW GLOBAL STATUS, server-wide) per run over the burst. */
  sqlPerRun: Record<string, number>;
  rssMb: Record<string, number>;
  dispatchFailures: Record<string, number>;
  /** Per engine: runs fired (acked), runs claimed (claim batch sizes summed), callbacks handled. */
  perEngine: Record<string, { fired: number; claimed: number; callbacks: number }>;
}

export function stats(values: number[]): StageStats {
  return { n: values.length, p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), max: values.length ? Math.max(...values) : NaN };
}

const SQL_COUNTERS = ['Questions', 'Com_begin', 'Com_commit', 'Com_rollback', 'Com_select', 'Com_update', 'Com_insert', 'Com_set_option'];
/** What each run costs the server beneath the statements: rows and index entries written, bytes on the wire (issue 22's profile). */
const WORK_COUNTERS = ['Innodb_rows_inserted', 'Innodb_rows_updated', 'Handler_write', 'Handler_update', 'Handler_delete', 'Bytes_received', 'Bytes_sent'];

async function sqlCounters(c: Cluster): Promise<Record<string, number>> {
  const names = [...SQL_COUNTERS, ...WORK_COUNTERS];
  const rows: Array<{ Variable_name: string; Value: string }> = await c.ds.query(`SHOW GLOBAL STATUS WHERE Variable_name IN (${names.map(() => '?').join(',')})`, names);
  return Object.fromEntries(rows.map((r) => [r.Variable_name, Number(r.Value)]));
}

async function terminalCount(c: Cluster): Promise<{ total: number; ended: number }> {
  const rows: Array<{ total: number | string; ended: number | string | null }> = await c.ds.query(
    "SELECT COUNT(*) AS total, SUM(state IN ('SUCCEEDED','FAILED','TIMED_OUT','CANCELLED','SKIPPED')) AS ended FROM runs WHERE tenant_id = ?",
    [c.tenant.id],
  );
  return { total: Number(rows[0].total), ended: Number(rows[0].ended ?? 0) };
}

export async function runBurstCase(
  n: number,
  engines: number,
  infra: Infra,
  log: (s: string) => void,
  engineEnv: Record<string, string> = {},
  executorEnv: Record<string, string> = BURST_EXECUTOR_ENV,
  handlerMs = 0,
  spreadMs = 0,
): Promise<BurstCase> {
  const c = await Cluster.open(`bb${n}x${engines}`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    const engineProcs = await c.startEngines(engines, engineEnv);
    const executors = await c.startExecutors(2, executorEnv);
    const taskCount = Math.max(1, Math.ceil((n / 1000) * TASKS_PER_1000));
    const taskIds = await insertTasks(
      c.ds,
      c.tenant,
      Array.from({ length: taskCount }, (_, i) => ({ name: `bench-${i}`, trigger: { kind: 'MANUAL' as const }, handler: handlerMs > 0 ? 'sleep' : 'noop' })),
    );
    const seedStart = Date.now();
    const due = Math.ceil((seedStart + 4_000 + n * 0.4) / 1000) * 1000;
    await insertRuns(
      c.ds,
      Array.from({ length: n }, (_, i) => ({ ...pendingRun(c.tenant, taskIds[i % taskCount], due + Math.floor((i * spreadMs) / n), `b:${due}:${i}`, seedStart), ...(handlerMs > 0 ? { params: { ms: handlerMs } } : {}) })),
    );
    const seedMs = Date.now() - seedStart;
    if (Date.now() > due - 2_000) log(`  warning: seeding took ${seedMs} ms; T is less than the 2 s look-ahead away`);
    const pids: Record<string, number | null> = { mariadb: infra.mariadbPid };
    engineProcs.forEach((e) => (pids[e.name] = e.pid));
    executors.forEach((e) => (pids[e.name] = e.pid));
    if (engineEnv.BENCH_PROFILE_DIR) for (const e of engineProcs) process.kill(e.pid, 'SIGUSR2'); // start the profilers (bench/support/cpu-profile.cjs)
    const sql0 = await sqlCounters(c);
    const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    // Wait for every run to end (cheap COUNT polls: loading rows would load the 2 cores we measure).
    await sleep(Math.max(0, due + spreadMs - Date.now()));
    const deadline = Date.now() + 120_000 + n * 30;
    let last = '';
    let movedAt = Date.now();
    for (;;) {
      const { total, ended } = await terminalCount(c);
      if (total >= n && ended >= n) break;
      if (`${ended}` !== last) {
        last = `${ended}`;
        movedAt = Date.now();
      }
      if (Date.now() > deadline || Date.now() - movedAt > 30_000) {
        log(`  burst did not end: ${ended}/${n} ended (stalled or timed out)`);
        break;
      }
      await sleep(250);
    }
    const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, +(cpuSeconds(pid) - cpu0[k]).toFixed(2)]));
    const sql1 = await sqlCounters(c);
    const rss = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, +rssMb(pid).toFixed(0)]));
    await sleep(300); // let the last record lines reach the files
    const runs = await c.runs(taskIds);
    const fig = await burstFigures(c, due, runs);
    const failures: Record<string, number> = {};
    const perEngine: BurstCase['perEngine'] = {};
    for (const e of engineProcs) {
      const m = await engineMetrics(e.url).catch(() => new Map<string, number>());
      const sumOf = (prefix: string) => [...m.entries()].filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
      perEngine[e.name] = { fired: sumOf('baton_engine_runs_fired_total'), claimed: sumOf('baton_engine_claim_batch_size_sum'), callbacks: sumOf('baton_engine_callback_seconds_count') };
      for (const [k, v] of m) if (k.startsWith('baton_engine_dispatch_failures_total')) failures[k.replace('baton_engine_dispatch_failures_total', '')] = (failures[k.replace('baton_engine_dispatch_failures_total', '')] ?? 0) + v;
    }
    // Each stage from the run's own instant (T, or T + its place in the spread).
    const rel = (pick: (r: RunEntity) => number | null) => runs.flatMap((r) => (pick(r) === null ? [] : [(pick(r) as number) - r.scheduledAt]));
    const ended = runs.filter((r) => r.finishedAt !== null);
    const lastDispatch = Math.max(...rel((r) => r.dispatchedAt));
    const result: BurstCase = {
      n,
      engines,
      seedMs,
      stages: {
        dispatched: stats(rel((r) => r.dispatchedAt)),
        accepted: stats(rel((r) => r.acceptedAt)),
        started: stats(rel((r) => r.startedAt)),
        recorded: stats(ended.map((r) => r.updatedAt - r.scheduledAt)),
      },
      earlyStarts: runs.filter((r) => startedEarlyBy(r.scheduledAt, r.startedAt) !== null).length,
      makespanDispatchMs: lastDispatch,
      makespanMs: fig.makespanToLastCallbackMs,
      dispatchRatePerSec: Math.round((n * 1000) / Math.max(1, lastDispatch)),
      states: fig.states,
      invocations: fig.invocations,
      duplicates: fig.duplicated.length,
      missing: fig.missing.length,
      byEngine: fig.byEngine,
      byExecutor: fig.byExecutor,
      cpuSec: cpu,
      sqlPerRun: Object.fromEntries([...SQL_COUNTERS, ...WORK_COUNTERS].map((k) => [k, +((sql1[k] - sql0[k]) / n).toFixed(2)])),
      rssMb: rss,
      dispatchFailures: failures,
      perEngine,
    };
    failed = false;
    return result;
  } finally {
    await c.close(failed);
  }
}

export interface BurstOptions {
  full: boolean;
  /** Only these cases (`--cases=1000x2,4000x2`). */
  cases?: Array<[number, number]>;
  /** Extra engine environment (e.g. `--profile`: NODE_OPTIONS=--cpu-prof). */
  engineEnv?: Record<string, string>;
  /** Result file suffix (so a profiled or custom run does not overwrite the quick/full figures). */
  tag?: string;
  /** The executors' environment (default BURST_EXECUTOR_ENV, limits opened; `--executor-defaults`: the SDK's defaults). */
  executorEnv?: Record<string, string>;
  /** Runs due spread evenly over this many ms from T instead of all at T (`--spread-ms=20000`): runs sent ahead meet executors busy with earlier ones. */
  spreadMs?: number;
  /** How long each handler works (default 0: `noop`; otherwise `sleep` for this many ms), so the executors' pools, not only their HTTP, are a limit. */
  handlerMs?: number;
}

export async function burstScenario(options: BurstOptions, infra: Infra, log: (s: string) => void): Promise<{ summary: string[][]; headers: string[] }> {
  const { full } = options;
  // Quick: the two target cases (1,000 and 4,000 on 2 engines) and 1,000 on 1 engine for the ratio.
  const quick: Array<[number, number]> = [
    [1000, 1],
    [1000, 2],
    [4000, 2],
  ];
  const plan = options.cases ?? (full ? [1000, 2000, 4000, 10000].flatMap((n) => [1, 2, 3].map((e): [number, number] => [n, e])) : quick);
  const cases: BurstCase[] = [];
  for (const [n, e] of plan) {
    {
      log(`burst: N=${n}, ${e} engine(s), 2 executors…`);
      const r = await runBurstCase(n, e, infra, log, options.engineEnv, options.executorEnv, options.handlerMs, options.spreadMs);
      cases.push(r);
      log(
        `  per engine ${JSON.stringify(r.perEngine)}\n  dispatched p50/p99/max ${r.stages.dispatched.p50}/${r.stages.dispatched.p99}/${r.stages.dispatched.max} ms; recorded p99 ${r.stages.recorded.p99} ms; makespan ${r.makespanMs} ms; dup ${r.duplicates} missing ${r.missing} early ${r.earlyStarts}; dispatch failures ${JSON.stringify(r.dispatchFailures)}; cpu ${JSON.stringify(r.cpuSec)}`,
      );
    }
  }
  const headers = ['N', 'eng', 'stage', 'p50', 'p90', 'p99', 'max'];
  const rows: Array<Array<string | number>> = [];
  for (const r of cases) {
    for (const [stage, s] of Object.entries(r.stages)) rows.push([r.n, r.engines, `→ ${stage}`, s.p50, s.p90, s.p99, s.max]);
  }
  const summaryHeaders = ['N', 'eng', 'disp p50', 'disp p99', 'disp max', 'cb p99', 'makespan', 'disp/s', 'dup', 'missing', 'early', 'states'];
  const summary = cases.map((r) => [
    String(r.n),
    String(r.engines),
    String(r.stages.dispatched.p50),
    String(r.stages.dispatched.p99),
    String(r.stages.dispatched.max),
    String(r.stages.recorded.p99),
    String(r.makespanMs),
    String(r.dispatchRatePerSec),
    String(r.duplicates),
    String(r.missing),
    String(r.earlyStarts),
    Object.entries(r.states)
      .map(([k, v]) => `${k}:${v}`)
      .join(' '),
  ]);
  console.log(`\nBurst — lateness per stage (ms after the instant T all runs were due)\n${table(headers, rows)}\n`);
  console.log(`Burst — summary\n${table(summaryHeaders, summary)}\n`);
  const cpuRows = cases.map((r) => [r.n, r.engines, ...['mariadb', 'engine', 'executor'].map((k) => Object.entries(r.cpuSec).filter(([name]) => name.startsWith(k)).reduce((a, [, v]) => a + v, 0))]);
  console.log(`Burst — MariaDB statements per run (server-wide counters over the burst; includes the bench's own polling)\n${table(['N', 'eng', ...SQL_COUNTERS], cases.map((r) => [r.n, r.engines, ...SQL_COUNTERS.map((k) => r.sqlPerRun[k])]))}\n`);
  console.log(`Burst — what each run costs MariaDB beneath the statements (rows, index entries, bytes)\n${table(['N', 'eng', ...WORK_COUNTERS], cases.map((r) => [r.n, r.engines, ...WORK_COUNTERS.map((k) => r.sqlPerRun[k])]))}\n`);
  console.log(`Burst — CPU seconds used during the burst (T → last callback), by component, and ms of CPU per run\n${table(['N', 'eng', 'mariadb', 'engines', 'executors', 'mariadb/run', 'engines/run', 'executors/run', 'all/run'], cpuRows.map((row) => { const [n, , ...cpu] = row; const per = cpu.map((v) => +((v * 1000) / n).toFixed(3)); return [...row, ...per, +per.reduce((a, b) => a + b, 0).toFixed(3)]; }))}\n`);
  writeResult(`burst${options.tag ?? ''}.json`, { benchmark: 'burst', quick: !full, engineEnv: options.engineEnv ?? {}, machine: machine(), seeding: 'direct PENDING run rows due at T (claim/dispatch path; planner bypassed)', tenant: BURST_TENANT, executorEnv: options.executorEnv ?? BURST_EXECUTOR_ENV, cases });
  const cats = cases.map((r) => `${r.n}×${r.engines}e`);
  writeResult(
    `burst${options.tag ?? ''}.svg`,
    barChartSvg({
      title: 'Burst: lateness scheduled → dispatched (ms)',
      unit: 'ms',
      categories: cats,
      series: (['p50', 'p90', 'p99', 'max'] as const).map((k) => ({ name: k, values: cases.map((r) => r.stages.dispatched[k]) })),
      lines: [
        { label: 'target p99 @1k/2e 200 ms', value: 200 },
        { label: 'target p99 @4k/2e 500 ms', value: 500 },
      ],
    }),
  );
  writeResult(
    `burst${options.tag ?? ''}-stages.svg`,
    barChartSvg({
      title: 'Burst: p99 lateness by stage (ms)',
      unit: 'ms',
      categories: cats,
      // A stage no run reached (none ACCEPTED, say) is left out.
      series: (['dispatched', 'accepted', 'started', 'recorded'] as const)
        .filter((k) => cases.some((r) => r.stages[k].n > 0))
        .map((k) => ({ name: `→ ${k}`, values: cases.map((r) => r.stages[k].p99) })),
    }),
  );
  return { headers: summaryHeaders, summary };
}

/**
 * Options: `--cases=1000x2,4000x2` (N x engines), `--profile` (engines under the V8 profiler,
 * bench/support/cpu-profile.cjs; profiles in bench/results/profiles, see bench/profile-summary.ts),
 * `--tag=-x` (result file suffix), `--engine-env=BATON_MAX_HELD=1000,…` (extra engine settings),
 * `--executor-env=BATON_EXECUTOR_CONCURRENCY=16,…` (the demo executors' settings over the bench's or, with
 * `--executor-defaults`, over the SDK's defaults),
 * `--executor-defaults` (the executors run with the SDK's defaults — concurrency 4, queue 100 —
 * instead of opened limits: what a user who changed nothing sees), `--handler-ms=20` (each handler
 * sleeps that long instead of returning at once: the executors' pools become the limit), `--spread-ms=20000`
 * (the runs due one after another over that span from T: with small executor queues, runs sent ahead
 * are refused and sent again — the case of issue 39's early starts, counted in `early`),
 * `--tracing=1` / `--tracing=0.01` (engines and executors export traces over OTLP to a counting
 * sink in this process, sampling that ratio of the traces: the cost of tracing, docs/OPERATIONS.md).
 */
export const burst: Scenario = {
  name: 'burst',
  description: 'N runs due at one instant on 1–3 engines, lateness per stage, duplicates/missing from the executors',
  async run({ full, args, infra, log }) {
    const cases = option(args, 'cases')?.split(',').map((c) => c.split('x').map(Number) as [number, number]);
    const profile = args.includes('--profile');
    const tag = option(args, 'tag') ?? (profile ? '-profile' : cases ? '-custom' : '');
    const engineEnv: Record<string, string> = profile ? { NODE_OPTIONS: `-r ${RESULTS_DIR}/../support/cpu-profile.cjs`, BENCH_PROFILE_DIR: `${RESULTS_DIR}/profiles` } : {};
    for (const kv of option(args, 'engine-env')?.split(',') ?? []) {
      const [k, ...v] = kv.split('=');
      engineEnv[k] = v.join('=');
    }
    // Spelt out: the cluster harness's own executor settings (EXECUTOR_TEST_ENV) would stand in for absent ones.
    let executorEnv: Record<string, string> | undefined = args.includes('--executor-defaults')
      ? { BATON_EXECUTOR_CONCURRENCY: String(EXECUTOR_DEFAULTS.concurrency), BATON_EXECUTOR_QUEUE_LIMIT: String(EXECUTOR_DEFAULTS.queueLimit) }
      : undefined;
    for (const kv of option(args, 'executor-env')?.split(',') ?? []) {
      const [k, ...v] = kv.split('=');
      executorEnv = { ...(executorEnv ?? BURST_EXECUTOR_ENV), [k]: v.join('=') };
    }
    const handlerMs = Number(option(args, 'handler-ms') ?? 0);
    const spreadMs = Number(option(args, 'spread-ms') ?? 0);
    const ratio = option(args, 'tracing');
    const sink = ratio === undefined ? null : await startOtlpSink();
    const traced = sink ? tracingEnv(sink.url, Number(ratio)) : {};
    let r: Awaited<ReturnType<typeof burstScenario>>;
    try {
      const withTracing = sink ? { engineEnv: { ...engineEnv, ...traced }, executorEnv: { ...(executorEnv ?? BURST_EXECUTOR_ENV), ...traced }, tag: option(args, 'tag') ?? `-tracing-${ratio}` } : {};
      r = await burstScenario({ full, cases, engineEnv, tag, executorEnv, handlerMs, spreadMs, ...withTracing }, infra, log);
    } finally {
      if (sink) log(`tracing at ratio ${ratio}: ${sink.spans()} spans received`);
      await sink?.stop();
    }
    return r.summary.map((row): [string, string] => [`burst N=${row[0]} ${row[1]}e`, `dispatch p99 ${row[3]} ms, callback p99 ${row[5]} ms, makespan ${row[6]} ms, dup ${row[8]}, missing ${row[9]}, early starts ${row[10]}`]);
  },
};
