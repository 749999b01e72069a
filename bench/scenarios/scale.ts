import { join } from 'node:path';
import { claimDueRunsSql, claimDueTasksSql, claimRangeParams } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { lateness, latenessSummary } from '../../test/cluster/support/figures';
import { insertTaskCopies, insertTasks, type TaskSpec } from '../../test/cluster/support/seed';
import { cpuSeconds, machine, rssMb, writeResult, type Infra } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { costByLoop, sqlTimingDiff, sqlTimingEnv, sqlTimingSnapshot, topStatements, type LoopCost } from '../support/sql-timing';
import { barChartSvg } from '../support/svg';
import { table } from '../support/table';
import { databaseSize, enableUserStats, queryPlan, rowsRead, type DatabaseSize, type QueryPlan } from './scale-db';

/**
 * Scale (issue #6, scenario 4): per size D, a fresh database holding D idle task definitions —
 * manual, paused, and cron / fixed-rate tasks whose first fire is more than a day ahead
 * (idleTemplates), so the planner's range on ix_tasks_plan (engine_group, paused, next_fire_at ≤
 * now + look-ahead) never reaches them — plus the same ACTIVE fixed-rate tasks firing every second
 * for the window, on 1 engine and 1 demo executor. What must stay flat as D grows: lateness of
 * the active runs, the engine's statement time per run in the planner and claimer loops
 * (bench/support/sql-timing.cjs), CPU per run of the engine and MariaDB, rows read per run,
 * engine RSS, and the plans of the two claim queries. Database size is reported (it grows with
 * D by nature; what matters is that nothing else does).
 */

const ACTIVE = 50;
/** Distinct idle schedules; the D copies cycle through them (so seeding needs no per-row trigger math). */
const TEMPLATES = 1_000;
const DAY = 86_400_000;

export interface ScaleCase {
  definitions: number;
  seedMs: number;
  windowMs: number;
  /** Runs of the active tasks scheduled in the window, and how many were dispatched. */
  runs: number;
  dispatched: number;
  states: Record<string, number>;
  lateness: ReturnType<typeof latenessSummary>;
  /** Over the measured span (active tasks inserted → last window run dispatched), per run. */
  perRun: {
    plannerSqlMs: number;
    claimerSqlMs: number;
    transactionSqlMs: number;
    otherSqlMs: number;
    engineCpuMs: number;
    mariadbCpuMs: number;
    tasksRowsRead: number;
    runsRowsRead: number;
  };
  loops: Record<string, LoopCost>;
  passes: { plan: number; claim: number };
  rssMb: number;
  rssMaxMb: number;
  heapUsedMb: number;
  db: DatabaseSize;
  /** The two claims as the engine runs them (nothing due after the window), and the planner's with every idle task due. */
  plans: { planner: QueryPlan; claimer: QueryPlan; 'planner, all due': QueryPlan };
  topStatements: ReturnType<typeof topStatements>;
}

/**
 * The idle definitions, every kind the planner's range must skip: 10 % MANUAL (no next fire:
 * NULL in ix_tasks_plan), 10 % paused cron tasks firing every second (due, but in the paused = 1
 * part of the index), and daily cron / hourly fixed-rate tasks whose first fire is more than a
 * day ahead.
 */
function idleTemplates(now: number): TaskSpec[] {
  return Array.from({ length: TEMPLATES }, (_, j): TaskSpec => {
    const startAt = now + DAY + j * 3_600;
    if (j % 10 === 0) return { name: 'idle', trigger: { kind: 'MANUAL' } };
    if (j % 10 === 1) return { name: 'idle', trigger: { kind: 'CRON', expression: '* * * * * *', timeZone: 'UTC' }, paused: true };
    if (j % 2) return { name: 'idle', trigger: { kind: 'FIXED_RATE', intervalMs: 3_600_000 }, startAt };
    return { name: 'idle', trigger: { kind: 'CRON', expression: `${j % 60} ${(j * 7) % 60} ${j % 24} * * *`, timeZone: 'UTC' }, startAt };
  });
}

function engineSample(m: Map<string, number>, name: string): number {
  return m.get(name) ?? 0;
}

export async function runScaleCase(definitions: number, windowMs: number, infra: Infra, log: (s: string) => void): Promise<ScaleCase> {
  const c = await Cluster.open(`bscale${definitions}`);
  const restoreUserStats = await enableUserStats(c.ds);
  let failed = true;
  try {
    const seedStart = Date.now();
    await insertTaskCopies(c.ds, c.tenant, idleTemplates(seedStart), definitions);
    const seedMs = Date.now() - seedStart;
    log(`  seeded ${definitions} idle tasks in ${(seedMs / 1000).toFixed(1)} s (${Math.round((definitions * 1000) / seedMs)} rows/s)`);
    const timingFile = join(c.dir, 'sql-timing.json');
    const [engine] = await c.startEngines(1, sqlTimingEnv(timingFile));
    await c.startExecutors(1);
    const pids = { engine: engine.pid, mariadb: infra.mariadbPid };
    const cpu0 = { engine: cpuSeconds(pids.engine), mariadb: cpuSeconds(pids.mariadb) };
    const sql0 = await sqlTimingSnapshot(engine.pid, timingFile);
    const read0 = await rowsRead(c.ds);
    const m0 = await engineMetrics(engine.url);

    // The active tasks: one fire per second each, spread evenly over the second, for the window.
    const t0 = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const activeIds = await insertTasks(
      c.ds,
      c.tenant,
      Array.from({ length: ACTIVE }, (_, i): TaskSpec => ({ name: `active-${i}`, trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 }, startAt: t0 + Math.floor((i * 1000) / ACTIVE), endAt: t0 + windowMs })),
    );
    // RSS sampled through the window: one reading at the end depends on where the GC happens to be.
    let rssMax = 0;
    for (let left = t0 + windowMs + 1_000 - Date.now(); left > 0; left = t0 + windowMs + 1_000 - Date.now()) {
      rssMax = Math.max(rssMax, rssMb(engine.pid));
      await sleep(Math.min(500, left));
    }
    const cpu = { engine: cpuSeconds(pids.engine) - cpu0.engine, mariadb: cpuSeconds(pids.mariadb) - cpu0.mariadb };
    const sql = sqlTimingDiff(await sqlTimingSnapshot(engine.pid, timingFile), sql0);
    const read1 = await rowsRead(c.ds);
    const m1 = await engineMetrics(engine.url);
    const rss = rssMb(engine.pid);
    await sleep(1_000); // the last callbacks
    const runs = await c.runs(activeIds);
    const dispatched = runs.filter((r) => r.dispatchedAt !== null).length;
    const states: Record<string, number> = {};
    for (const r of runs) states[r.state] = (states[r.state] ?? 0) + 1;
    const loops = costByLoop(sql);
    const per = (v: number) => +(v / Math.max(1, runs.length)).toFixed(3);
    const now = Date.now();
    const result: ScaleCase = {
      definitions,
      seedMs,
      windowMs,
      runs: runs.length,
      dispatched,
      states,
      lateness: latenessSummary(lateness(runs)),
      perRun: {
        plannerSqlMs: per(loops.planner.ms),
        claimerSqlMs: per(loops.claimer.ms),
        transactionSqlMs: per(loops.transaction.ms),
        otherSqlMs: per(loops.other.ms),
        engineCpuMs: per(cpu.engine * 1000),
        mariadbCpuMs: per(cpu.mariadb * 1000),
        tasksRowsRead: per((read1.tasks ?? 0) - (read0.tasks ?? 0)),
        runsRowsRead: per((read1.runs ?? 0) - (read0.runs ?? 0)),
      },
      loops,
      passes: {
        plan: engineSample(m1, 'baton_engine_claim_batch_size_count{kind="tasks"}') - engineSample(m0, 'baton_engine_claim_batch_size_count{kind="tasks"}'),
        claim: engineSample(m1, 'baton_engine_claim_batch_size_count{kind="runs"}') - engineSample(m0, 'baton_engine_claim_batch_size_count{kind="runs"}'),
      },
      rssMb: +rss.toFixed(0),
      rssMaxMb: +Math.max(rssMax, rss).toFixed(0),
      heapUsedMb: +(engineSample(m1, 'baton_engine_nodejs_heap_size_used_bytes') / 2 ** 20).toFixed(1),
      db: await databaseSize(c.ds),
      plans: {
        planner: await queryPlan(c.ds, claimDueTasksSql('mysql'), [c.tenant.engineGroup, now + 2_000, 200]),
        claimer: await queryPlan(c.ds, claimDueRunsSql('mysql'), claimRangeParams({ tenantId: c.tenant.id, engineGroup: c.tenant.engineGroup, limit: 500 }, 'PENDING', { dueBefore: now + 2_000, now })),
        // A horizon past every idle task's first fire: the in-order range must stop at LIMIT 200, not read (and lock) all D.
        'planner, all due': await queryPlan(c.ds, claimDueTasksSql('mysql'), [c.tenant.engineGroup, now + 3 * DAY, 200]),
      },
      topStatements: topStatements(sql),
    };
    failed = false;
    return result;
  } finally {
    await restoreUserStats();
    await c.close(failed);
  }
}

async function scaleScenario(sizes: number[], windowMs: number, full: boolean, tag: string, infra: Infra, log: (s: string) => void): Promise<Array<[string, string]>> {
  const cases: ScaleCase[] = [];
  for (const d of sizes) {
    log(`scale: ${d} task definitions + ${ACTIVE} active tasks at 1/s for ${windowMs / 1000} s, 1 engine, 1 executor…`);
    const r = await runScaleCase(d, windowMs, infra, log);
    cases.push(r);
    log(`  lateness p50/p99/max ${r.lateness.p50}/${r.lateness.p99}/${r.lateness.max} ms; per run: planner ${r.perRun.plannerSqlMs} ms, claimer ${r.perRun.claimerSqlMs} ms SQL; RSS ${r.rssMb} MB (max ${r.rssMaxMb}); DB ${r.db.totalMb} MB`);
  }
  report(cases, windowMs, full, tag);
  return cases.map((r): [string, string] => [
    `scale D=${r.definitions}`,
    `lateness p50/p99 ${r.lateness.p50}/${r.lateness.p99} ms, planner/claimer SQL ${r.perRun.plannerSqlMs}/${r.perRun.claimerSqlMs} ms/run, RSS max ${r.rssMaxMb} MB, DB ${r.db.totalMb} MB, seed ${(r.seedMs / 1000).toFixed(1)} s`,
  ]);
}

function report(cases: ScaleCase[], windowMs: number, full: boolean, tag: string): void {
  const perRunHeaders = ['D', 'runs', 'disp', 'late p50', 'p90', 'p99', 'max', 'planner SQL ms/run', 'claimer SQL ms/run', 'other txn ms/run', 'other ms/run', 'engine CPU ms/run', 'MariaDB CPU ms/run', 'tasks rows/run', 'runs rows/run'];
  const perRun = cases.map((r) => [r.definitions, r.runs, r.dispatched, r.lateness.p50, r.lateness.p90, r.lateness.p99, r.lateness.max, r.perRun.plannerSqlMs, r.perRun.claimerSqlMs, r.perRun.transactionSqlMs, r.perRun.otherSqlMs, r.perRun.engineCpuMs, r.perRun.mariadbCpuMs, r.perRun.tasksRowsRead, r.perRun.runsRowsRead]);
  console.log(`\nScale — ${ACTIVE} active tasks at 1/s for ${windowMs / 1000} s among D idle definitions: lateness (ms, dispatched − scheduled) and cost per run\n${table(perRunHeaders, perRun)}\n`);
  const sizeHeaders = ['D', 'seed s', 'rows/s', 'RSS MB', 'RSS max MB', 'heap MB', 'DB MB', 'tasks MB', 'runs MB', 'tasks', 'runs', 'plan passes', 'claim passes'];
  const sizes = cases.map((r) => [r.definitions, +(r.seedMs / 1000).toFixed(1), Math.round((r.definitions * 1000) / r.seedMs), r.rssMb, r.rssMaxMb, r.heapUsedMb, r.db.totalMb, r.db.tasksMb, r.db.runsMb, r.db.tasks, r.db.runs, r.passes.plan, r.passes.claim]);
  console.log(`Scale — memory, database size, seeding (InnoDB buffer pool ${cases[0]?.db.bufferPoolMb ?? '-'} MB)\n${table(sizeHeaders, sizes)}\n`);
  const planHeaders = ['D', 'query', 'key', 'type', 'est. rows', 'rows examined', 'rows returned', 'median ms', 'Extra'];
  const plans = cases.flatMap((r) => Object.entries(r.plans).map(([q, p]) => [r.definitions, q, p.key ?? '-', p.type, p.estimatedRows, p.rowsExamined, p.rowsReturned, p.medianMs, p.extra]));
  console.log(`Scale — the planner's task claim and the claimer's run claim, EXPLAIN + ANALYZE (after the window)\n${table(planHeaders, plans)}\n`);
  const base = `scale${tag}`;
  writeResult(`${base}.json`, { benchmark: 'scale', quick: !full, machine: machine(), activeTasks: ACTIVE, idleTemplates: TEMPLATES, windowMs, cases });
  const cats = cases.map((r) => `${r.definitions >= 1e6 ? `${r.definitions / 1e6}M` : `${r.definitions / 1e3}k`} tasks`);
  const p99At1k = cases[0]?.lateness.p99;
  writeResult(
    `${base}.svg`,
    barChartSvg({
      title: `Scale: lateness of ${ACTIVE} runs/s among D idle task definitions (ms)`,
      unit: 'ms',
      categories: cats,
      series: (['p50', 'p90', 'p99', 'max'] as const).map((k) => ({ name: k, values: cases.map((r) => r.lateness[k]) })),
      lines: p99At1k ? [{ label: `target: p99 ≤ 1.5 × smallest D (${Math.round(p99At1k * 1.5)} ms)`, value: p99At1k * 1.5 }] : [],
    }),
  );
  writeResult(
    `${base}-cost.svg`,
    barChartSvg({
      title: 'Scale: cost per run (ms)',
      unit: 'ms per run',
      categories: cats,
      series: [
        { name: 'planner SQL', values: cases.map((r) => r.perRun.plannerSqlMs) },
        { name: 'claimer SQL', values: cases.map((r) => r.perRun.claimerSqlMs) },
        { name: 'engine CPU', values: cases.map((r) => r.perRun.engineCpuMs) },
        { name: 'MariaDB CPU', values: cases.map((r) => r.perRun.mariadbCpuMs) },
      ],
    }),
  );
  writeResult(
    `${base}-memory.svg`,
    barChartSvg({
      title: 'Scale: engine RSS and database size (MB)',
      unit: 'MB',
      log: true,
      categories: cats,
      series: [
        { name: 'engine RSS', values: cases.map((r) => r.rssMb) },
        { name: 'engine RSS max', values: cases.map((r) => r.rssMaxMb) },
        { name: 'database', values: cases.map((r) => r.db.totalMb) },
      ],
      lines: [{ label: 'target RSS ≤ 200 MB', value: 200 }],
    }),
  );
}

/** Options: `--sizes=1000,1000000` (task definitions per case), `--window=30` (seconds), `--tag=-x` (result file suffix). */
export const scale: Scenario = {
  name: 'scale',
  description: 'D = 1k/10k/100k (+1M with --full) idle task definitions + 50 runs/s: lateness, planner/claimer cost per run, RSS, DB size, query plans',
  run({ full, args, infra, log }) {
    const sizes = option(args, 'sizes')?.split(',').map(Number) ?? (full ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000]);
    const windowMs = Number(option(args, 'window') ?? (full ? 30 : 20)) * 1000;
    const tag = option(args, 'tag') ?? (option(args, 'sizes') ? '-custom' : '');
    return scaleScenario(sizes, windowMs, full, tag, infra, log);
  },
};
