import { RunEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { percentile } from '../../test/cluster/support/figures';
import { insertTasks } from '../../test/cluster/support/seed';
import { machine, writeResult } from '../support/infra';
import type { Scenario } from '../support/scenario';
import { barChartSvg } from '../support/svg';
import { table } from '../support/table';

/**
 * Slot hold (the MTHPT claim): one engine with 4 dispatch slots, one executor with 16 workers;
 * LONG runs of `long-running` (30 s quick, 120 s full) all due at T0, and short `noop` runs
 * (SHORT_TASKS tasks, one run each per second) for the whole window. Run twice: the default
 * asynchronous dispatch (slot freed at the 202 ack) and BATON_SYNCHRONOUS_DISPATCH=1 (the
 * paper's synchronous baseline: the slot is held until the run ends). Reports the slot hold
 * time (engine /metrics histogram baton_engine_slot_hold_seconds) and the paper's table 1:
 * delayed (lateness > 1 s), failed and timed-out runs.
 */
const SLOTS = 4;
const LONG = 8;
const SHORT_TASKS = 3;
const LATE_MS = 1_000;
/** Short runs dispatched before the measurement: a fresh engine's first dispatches pay JIT compilation and first connections. */
const WARMUP = 20;

export interface SlotHoldCase {
  mode: 'async' | 'sync';
  longMs: number;
  shortRuns: number;
  longRuns: number;
  /** Over the measured runs, after WARMUP dispatches (a fresh engine's first ones pay JIT and first connections). */
  slotHold: { count: number; meanMs: number; p50Ms: string; p99Ms: string };
  /** Over every dispatch, the warm-up included. */
  slotHoldAll: { count: number; meanMs: number; p50Ms: string; p99Ms: string };
  shortLateness: { p50: number; p99: number; max: number };
  delayed: number;
  failed: number;
  timedOut: number;
  startLateAlarms: number;
  notEnded: number;
  /** The engine process exited during the case (the paper's "engine crashes"). */
  engineCrashes: number;
  states: Record<string, number>;
}

/** A quantile of a Prometheus histogram as "≤ bucket" (the bucket's upper bound), in ms. */
function histogramQuantile(m: Map<string, number>, name: string, q: number): string {
  const buckets = [...m.entries()]
    .filter(([k]) => k.startsWith(`${name}_bucket`))
    .map(([k, v]) => ({ le: /le="([^"]+)"/.exec(k)![1], v }))
    .map((b) => ({ le: b.le === '+Inf' ? Infinity : Number(b.le), v: b.v }))
    .sort((a, b) => a.le - b.le);
  const total = buckets.length ? buckets[buckets.length - 1].v : 0;
  if (!total) return '-';
  const b = buckets.find((x) => x.v >= q * total)!;
  const prev = buckets[buckets.indexOf(b) - 1];
  return Number.isFinite(b.le) ? `≤ ${b.le * 1000}` : `> ${(prev?.le ?? 0) * 1000}`;
}

/** Histogram figures of `m` (Prometheus text, as parsed by engineMetrics). */
function holdFigures(m: Map<string, number>): SlotHoldCase['slotHold'] {
  const name = 'baton_engine_slot_hold_seconds';
  const count = m.get(`${name}_count`) ?? 0;
  const sum = m.get(`${name}_sum`) ?? 0;
  return { count, meanMs: count ? +((sum / count) * 1000).toFixed(2) : NaN, p50Ms: histogramQuantile(m, name, 0.5), p99Ms: histogramQuantile(m, name, 0.99) };
}

/** `after − before`, series by series: the histogram of what happened in between. */
function minus(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
}

async function runMode(mode: 'async' | 'sync', longMs: number, windowMs: number, log: (s: string) => void): Promise<SlotHoldCase> {
  const c = await Cluster.open(`bslot${mode}`);
  let failed = true;
  try {
    const [engine] = await c.startEngines(1, { BATON_ENGINE_SLOTS: String(SLOTS), ...(mode === 'sync' ? { BATON_SYNCHRONOUS_DISPATCH: '1' } : {}) });
    await c.startExecutors(1, { BATON_EXECUTOR_CONCURRENCY: '16', BATON_EXECUTOR_QUEUE_LIMIT: '1000' });
    const [longTask, ...shortTasks] = await insertTasks(c.ds, c.tenant, [
      { name: 'long', trigger: { kind: 'MANUAL' as const }, handler: 'long-running', params: { ms: longMs }, timeoutMs: longMs * 2 },
      ...Array.from({ length: SHORT_TASKS }, (_, i) => ({ name: `short-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop', timeoutMs: 10_000 })),
    ]);
    let now = Date.now();
    const row = (taskId: number, at: number, key: string, params: unknown): Partial<RunEntity> => ({
      tenantId: c.tenant.id,
      taskId,
      engineGroup: c.tenant.engineGroup,
      state: 'PENDING',
      cause: 'SCHEDULE',
      fireKey: key,
      attempt: 1,
      priority: 0,
      params: params as RunEntity['params'],
      scheduledAt: at,
      dueAt: at,
      createdAt: now,
      updatedAt: now,
    });
    // Warm-up: WARMUP short runs now, measured apart (holdAll) from the scenario's (hold).
    await c.ds.getRepository(RunEntity).insert(Array.from({ length: WARMUP }, (_, i) => row(shortTasks[0], now, `w:${i}`, null)));
    for (let i = 0; i < 60 && (await c.stateCounts()).SUCCEEDED !== WARMUP; i++) await sleep(250);
    const warm = await engineMetrics(engine.url);
    now = Date.now();
    const t0 = Math.ceil((now + 3_000) / 1000) * 1000;
    const rows = [
      ...Array.from({ length: LONG }, (_, i) => row(longTask, t0, `l:${i}`, { ms: longMs })),
      ...shortTasks.flatMap((taskId, ti) => Array.from({ length: Math.floor(windowMs / 1000) }, (_, s) => row(taskId, t0 + 1_000 + s * 1_000 + ti * 100, `s:${s}`, null))),
    ];
    await c.ds.getRepository(RunEntity).insert(rows);
    log(`  ${mode}: ${LONG} × ${longMs / 1000} s runs at T0, ${rows.length - LONG} short runs over ${windowMs / 1000} s`);
    // Synchronous mode needs ⌈LONG / SLOTS⌉ rounds of long runs before the short ones get a slot.
    const end = t0 + Math.ceil(LONG / SLOTS) * longMs + windowMs + 10_000;
    for (;;) {
      const r: Array<{ n: number | string }> = await c.ds.query(
        "SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND state NOT IN ('SUCCEEDED','FAILED','TIMED_OUT','CANCELLED','SKIPPED')",
        [c.tenant.id],
      );
      if (Number(r[0].n) === 0 && Date.now() > t0) break;
      if (Date.now() > end) break;
      await sleep(500);
    }
    const metrics = await engineMetrics(engine.url);
    const runs = (await c.runs()).filter((r) => !r.fireKey.startsWith('w:'));
    const shorts = runs.filter((r) => r.taskId !== longTask);
    const late = shorts.map((r) => (r.dispatchedAt ?? Date.now()) - r.scheduledAt);
    const states: Record<string, number> = {};
    for (const r of runs) states[r.state] = (states[r.state] ?? 0) + 1;
    const result: SlotHoldCase = {
      mode,
      longMs,
      shortRuns: shorts.length,
      longRuns: LONG,
      slotHold: holdFigures(minus(metrics, warm)),
      slotHoldAll: holdFigures(metrics),
      shortLateness: { p50: percentile(late, 50), p99: percentile(late, 99), max: Math.max(...late) },
      delayed: runs.filter((r) => (r.dispatchedAt ?? Date.now()) - r.scheduledAt > LATE_MS).length,
      failed: runs.filter((r) => r.state === 'FAILED').length,
      timedOut: runs.filter((r) => r.state === 'TIMED_OUT').length,
      startLateAlarms: runs.filter((r) => r.lateAlarmedAt !== null).length,
      notEnded: runs.filter((r) => !['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(r.state)).length,
      engineCrashes: engine.alive ? 0 : 1,
      states,
    };
    failed = false;
    return result;
  } finally {
    await c.close(failed);
  }
}

async function slotHoldScenario(full: boolean, log: (s: string) => void): Promise<Array<[string, string]>> {
  const longMs = full ? 120_000 : 30_000;
  const windowMs = full ? 120_000 : 30_000;
  const cases: SlotHoldCase[] = [];
  for (const mode of ['async', 'sync'] as const) {
    log(`slot-hold: ${mode} dispatch, 1 engine with ${SLOTS} slots…`);
    cases.push(await runMode(mode, longMs, windowMs, log));
  }
  const headers = ['mode', 'slot hold mean ms', 'p50 ms', 'p99 ms', 'p99 incl. warm-up', 'short late p50', 'p99', 'max', `delayed (>${LATE_MS} ms)`, 'START_LATE', 'failed', 'timed out', 'not ended', 'engine crashes'];
  const rows = cases.map((r) => [r.mode, r.slotHold.meanMs, r.slotHold.p50Ms, r.slotHold.p99Ms, r.slotHoldAll.p99Ms, r.shortLateness.p50, r.shortLateness.p99, r.shortLateness.max, r.delayed, r.startLateAlarms, r.failed, r.timedOut, r.notEnded, r.engineCrashes]);
  console.log(`\nSlot hold — ${LONG} × ${longMs / 1000} s runs + ${SHORT_TASKS} short runs/s, 1 engine with ${SLOTS} slots (the MTHPT table 1, in minutes)\n${table(headers, rows)}\n`);
  writeResult('slot-hold.json', { benchmark: 'slot-hold', quick: !full, machine: machine(), slots: SLOTS, warmupRuns: WARMUP, longRuns: LONG, longMs, shortTasks: SHORT_TASKS, windowMs, lateThresholdMs: LATE_MS, cases });
  writeResult(
    'slot-hold.svg',
    barChartSvg({
      title: 'Slot hold: async (ack) vs synchronous dispatch',
      unit: 'ms (log)',
      log: true,
      categories: cases.map((r) => r.mode),
      series: [
        { name: 'slot hold mean', values: cases.map((r) => r.slotHold.meanMs) },
        { name: 'short p50 lateness', values: cases.map((r) => r.shortLateness.p50) },
        { name: 'short p99 lateness', values: cases.map((r) => r.shortLateness.p99) },
      ],
      lines: [{ label: 'slot hold p99 target 20 ms', value: 20 }],
    }),
  );
  return cases.map((r): [string, string] => [
    `slot-hold ${r.mode}`,
    `slot hold mean ${r.slotHold.meanMs} ms (p99 ${r.slotHold.p99Ms} ms; ${r.slotHoldAll.p99Ms} ms with the ${WARMUP} warm-up dispatches); short lateness p99 ${r.shortLateness.p99} ms; delayed ${r.delayed}, failed ${r.failed}, timed out ${r.timedOut}, engine crashes ${r.engineCrashes}`,
  ]);
}

export const slotHold: Scenario = {
  name: 'slot-hold',
  description: 'MTHPT table 1: long + short runs on 4 slots, async (ack) dispatch vs a synchronous baseline',
  run: ({ full, log }) => slotHoldScenario(full, log),
};
