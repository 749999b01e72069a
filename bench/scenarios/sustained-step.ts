import { cpus } from 'node:os';
import { TERMINAL_STATES } from '@baton/domain';
import { sleep, type Cluster } from '../../test/cluster/support/cluster';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { countBy, invocationCheck, percentile } from '../../test/cluster/support/figures';
import { cpuSeconds, machineTicks, rssMb } from '../support/infra';
import { insertRuns, pendingRun } from '../support/runs';

/**
 * One step of offered load: `rate` runs per second due over `durationMs`, fed as PENDING rows
 * (due times spread uniformly over each second, each second's rows inserted LEAD_MS ahead in
 * multi-row INSERTs, round-robin over the tasks). After the step the bench waits until every run
 * of the step has ended (so each step starts from an idle system), then reads the step's figures
 * from the run rows and the executors' record files. Rates are measured over the steady part of
 * the step (after `warmupMs`) by the time of each event: dispatched (`dispatched_at`), executed
 * (the handler's invocation in the executor's record file) and recorded (`updated_at` of the
 * ended run, i.e. the callback stored).
 */

/**
 * Rows of a second are inserted this far ahead of their first due time: inside the engines' 2 s
 * look-ahead, so the next claim poll (every 200 ms) takes them before they are due.
 */
const LEAD_MS = 1_500;
/** A step keeps up only if each rate reaches this share of the offered rate. */
const KEEP_UP_SHARE = 0.95;
/** Lateness counts as growing when the median of the window's last third exceeds the first third's by more than this… */
const GROWTH_FLOOR_MS = 250;
/** …or by more than this share of the time between them (a backlog growing at 5 % of the offered rate). */
const GROWTH_SHARE = 0.05;
/** The drain after a step gives up when nothing ended for this long. */
const STALL_MS = 30_000;

export interface StepPlan {
  /** Why this step runs: `ladder`, `50%`, `90%`. */
  kind: string;
  rate: number;
  durationMs: number;
  warmupMs: number;
}

/** What a step runs on: the cluster (its engine and executor processes), its tasks, and MariaDB's pid. */
export interface StepEnv {
  c: Cluster;
  taskIds: number[];
  mariadbPid: number | null;
  log(line: string): void;
}

export interface Quantiles {
  p50: number;
  p99: number;
  max: number;
}

export interface StepResult extends StepPlan {
  offered: number;
  /** Events per second over the steady window. */
  rates: { dispatched: number; executed: number; recorded: number };
  /** scheduled → dispatched (ms), runs due in the steady window; a run never dispatched counts as infinitely late. */
  lateness: Quantiles;
  /** scheduled → callback recorded (ms), same runs. */
  endToEnd: Quantiles;
  /** Median lateness of the window's last third minus its first third (ms). */
  growthMs: number;
  keptUp: boolean;
  /** Why it did not keep up (empty when it did). */
  why: string[];
  /** Time from the step's last due instant until every run of it had ended. */
  drainMs: number;
  notEnded: number;
  duplicates: number;
  missing: number;
  /** Runs of the step per dispatching engine (claimed_by). */
  byEngine: Record<string, number>;
  /** CPU seconds per process (mariadb, engine-n, executor-n, bench = the feeder) over the step's due interval, and per run recorded in it. */
  cpuSec: Record<string, number>;
  cpuMsPerRun: number;
  /** Runs recorded (ended) per second during the step's due interval: the work the CPU above paid for. */
  workRate: number;
  /** Share of all cores used by those processes over the step… */
  utilisation: number;
  /** …and by everything on the machine (other engineers' work included). */
  machineBusy: number;
  /** Per engine: callbacks it handled during the step and their mean processing time (engine /metrics). */
  callbacks: Record<string, { count: number; meanMs: number }>;
  rssMb: Record<string, number>;
  /** V8 heap used per engine at the step's end (engine /metrics): RSS alone cannot tell a leak from a lazy GC. */
  heapMb: Record<string, number>;
  /** How late the feeder was at worst (a feeder behind its schedule offers less than `rate`). */
  feederLagMs: number;
}

interface StepRow {
  id: number;
  state: string;
  claimedBy: string | null;
  scheduledAt: number;
  dispatchedAt: number | null;
  updatedAt: number;
}

export async function runStep(env: StepEnv, plan: StepPlan): Promise<StepResult> {
  const { c } = env;
  const start = Date.now() + LEAD_MS + 100;
  const end = start + plan.durationMs;
  const rate = Math.max(1, Math.round(plan.rate));
  const [feederLagMs, usage] = await Promise.all([feed(env, rate, start, plan.durationMs), usageOver(env, start, end)]);
  const rss = Object.fromEntries(c.engines.map((e) => [e.name, +rssMb(e.pid).toFixed(0)]));
  const cpu = usage.cpuSec;
  const drained = await drain(c, start, end);
  const drainMs = Date.now() - end;
  await sleep(300); // let the last record lines reach the files
  const rows = await stepRows(c, start, end);
  const runIds = new Set(rows.map((r) => r.id));
  const records = c.records().filter((r) => runIds.has(r.runId));
  const check = invocationCheck(records, [...runIds]);
  const executedAt = records.map((r) => r.at);
  const from = start + plan.warmupMs;
  const seconds = (end - from) / 1000;
  const ratePerSec = (times: number[]) => +(times.filter((t) => t >= from && t < end).length / seconds).toFixed(1);
  const ended = rows.filter((r) => (TERMINAL_STATES as readonly string[]).includes(r.state));
  const rates = {
    dispatched: ratePerSec(rows.flatMap((r) => (r.dispatchedAt === null ? [] : [r.dispatchedAt]))),
    executed: ratePerSec(executedAt),
    recorded: ratePerSec(ended.map((r) => r.updatedAt)),
  };
  const windowRows = rows.filter((r) => r.scheduledAt >= from);
  const late = (r: StepRow) => (r.dispatchedAt === null ? Infinity : r.dispatchedAt - r.scheduledAt);
  const third = (end - from) / 3;
  const growthMs = percentile(windowRows.filter((r) => r.scheduledAt >= end - third).map(late), 50) - percentile(windowRows.filter((r) => r.scheduledAt < from + third).map(late), 50);
  const recordedIn = ended.filter((r) => r.updatedAt >= start && r.updatedAt < end).length;
  const cpuTotal = Object.values(cpu).reduce((a, b) => a + b, 0);
  const why = [
    ...Object.entries(rates)
      .filter(([, v]) => v < KEEP_UP_SHARE * rate)
      .map(([k, v]) => `${k} ${v}/s < ${KEEP_UP_SHARE * 100}% of ${rate}/s`),
    ...(growthMs > Math.max(GROWTH_FLOOR_MS, GROWTH_SHARE * 2 * third) ? [`lateness grew ${growthMs} ms`] : []),
    ...(drained ? [] : ['runs left unended']),
  ];
  return {
    ...plan,
    rate,
    offered: rows.length,
    rates,
    lateness: quantiles(windowRows.map(late)),
    endToEnd: quantiles(windowRows.map((r) => ((TERMINAL_STATES as readonly string[]).includes(r.state) ? r.updatedAt - r.scheduledAt : Infinity))),
    growthMs,
    keptUp: why.length === 0,
    why,
    drainMs,
    notEnded: rows.length - ended.length,
    duplicates: check.duplicated.length,
    missing: check.missing.length,
    byEngine: countBy(rows, (r) => r.claimedBy),
    cpuSec: cpu,
    cpuMsPerRun: +((cpuTotal * 1000) / Math.max(1, recordedIn)).toFixed(2),
    workRate: +(recordedIn / (plan.durationMs / 1000)).toFixed(1),
    utilisation: +(cpuTotal / (plan.durationMs / 1000) / cpus().length).toFixed(2),
    machineBusy: usage.machineBusy,
    callbacks: usage.callbacks,
    heapMb: usage.heapMb,
    rssMb: rss,
    feederLagMs,
  };
}

/** Inserts each second's rows LEAD_MS before that second; returns the worst lateness of an insert against that schedule. */
async function feed(env: StepEnv, rate: number, start: number, durationMs: number): Promise<number> {
  let lag = 0;
  for (let s = 0; s * 1000 < durationMs; s++) {
    const second = start + s * 1000;
    await sleep(second - LEAD_MS - Date.now());
    const now = Date.now();
    lag = Math.max(lag, now - (second - LEAD_MS));
    const rows = Array.from({ length: rate }, (_, i) => pendingRun(env.c.tenant, env.taskIds[(s * rate + i) % env.taskIds.length], second + Math.floor((i * 1000) / rate), `s:${second}:${i}`, now));
    await insertRuns(env.c.ds, rows);
  }
  if (lag > LEAD_MS - 500) env.log(`  warning: the feeder ran ${lag} ms behind: rows may have reached the database after their due time`);
  return lag;
}

interface Snapshot {
  cpu: Record<string, number>;
  ticks: { busy: number; total: number };
  callbacks: Record<string, { count: number; sum: number }>;
  heapMb: Record<string, number>;
}

async function snapshot(env: StepEnv): Promise<Snapshot> {
  const own = process.cpuUsage();
  const procs = [...env.c.engines, ...env.c.executors];
  const cpu = { mariadb: cpuSeconds(env.mariadbPid), ...Object.fromEntries(procs.map((p) => [p.name, cpuSeconds(p.pid)])), bench: (own.user + own.system) / 1e6 };
  const ticks = machineTicks();
  const callbacks: Snapshot['callbacks'] = {};
  const heapMb: Snapshot['heapMb'] = {};
  for (const e of env.c.engines) {
    const m = await engineMetrics(e.url).catch(() => new Map<string, number>());
    callbacks[e.name] = { count: m.get('baton_engine_callback_seconds_count') ?? NaN, sum: m.get('baton_engine_callback_seconds_sum') ?? NaN };
    heapMb[e.name] = +((m.get('baton_engine_nodejs_heap_size_used_bytes') ?? NaN) / 2 ** 20).toFixed(0);
  }
  return { cpu, ticks, callbacks, heapMb };
}

/** CPU seconds per process, the machine's busy share and the engines' callbacks between `from` and `to`. */
async function usageOver(env: StepEnv, from: number, to: number): Promise<Pick<StepResult, 'machineBusy' | 'callbacks' | 'heapMb'> & { cpuSec: Record<string, number> }> {
  await sleep(from - Date.now());
  const a = await snapshot(env);
  await sleep(to - Date.now());
  const b = await snapshot(env);
  const callbacks = Object.fromEntries(
    Object.entries(b.callbacks).map(([k, v]) => {
      const count = v.count - a.callbacks[k].count;
      return [k, { count, meanMs: +(((v.sum - a.callbacks[k].sum) * 1000) / Math.max(1, count)).toFixed(1) }];
    }),
  );
  return {
    cpuSec: Object.fromEntries(Object.entries(b.cpu).map(([k, v]) => [k, +(v - a.cpu[k]).toFixed(2)])),
    machineBusy: +((b.ticks.busy - a.ticks.busy) / (b.ticks.total - a.ticks.total)).toFixed(2),
    callbacks,
    heapMb: b.heapMb,
  };
}

/** Waits until every run due in [from, to) has ended; false when nothing moved for STALL_MS. */
async function drain(c: Cluster, from: number, to: number): Promise<boolean> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const rows: Array<{ total: number | string; ended: number | string | null }> = await c.ds.query(
      `SELECT COUNT(*) AS total, SUM(state IN (${TERMINAL_STATES.map(() => '?').join(',')})) AS ended FROM runs WHERE tenant_id = ? AND scheduled_at >= ? AND scheduled_at < ?`,
      [...TERMINAL_STATES, c.tenant.id, from, to],
    );
    const ended = Number(rows[0].ended ?? 0);
    if (ended >= Number(rows[0].total)) return true;
    if (ended !== last) {
      last = ended;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > STALL_MS) return false;
    await sleep(500);
  }
}

/** The step's runs, only the columns the figures need (tens of thousands of rows: no entity mapping). */
async function stepRows(c: Cluster, from: number, to: number): Promise<StepRow[]> {
  const rows: Array<Record<string, string | number | null>> = await c.ds.query(
    'SELECT id, state, claimed_by, scheduled_at, dispatched_at, updated_at FROM runs WHERE tenant_id = ? AND scheduled_at >= ? AND scheduled_at < ?',
    [c.tenant.id, from, to],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    state: String(r.state),
    claimedBy: r.claimed_by === null ? null : String(r.claimed_by),
    scheduledAt: Number(r.scheduled_at),
    dispatchedAt: r.dispatched_at === null ? null : Number(r.dispatched_at),
    updatedAt: Number(r.updated_at),
  }));
}

function quantiles(values: number[]): Quantiles {
  return { p50: percentile(values, 50), p99: percentile(values, 99), max: values.reduce((a, b) => Math.max(a, b), -Infinity) };
}
