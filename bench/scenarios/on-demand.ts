import { join } from 'node:path';
import { EXECUTOR_DEFAULTS } from '@baton/executor-sdk';
import { sleep } from '../../test/cluster/support/cluster';
import { CpuMeter } from '../support/cpu-meter';
import { machine, RESULTS_DIR, writeResult } from '../support/infra';
import { startBaton } from '../support/on-demand/baton-target';
import { runStep, settle, StartBook, type StepRun, type StepSpec } from '../support/on-demand/open-loop';
import { startFloor } from '../support/on-demand/floor-target';
import { startPeer } from '../support/on-demand/peer-targets';
import { knee, KNEE_P99_MS, stepFigures, type StepFigures } from '../support/on-demand/step-figures';
import type { KillTarget, OnDemandTarget } from '../support/on-demand/target';
import { PeerServer } from '../support/peers/private-server';
import { option, parseEngineEnv, type Scenario } from '../support/scenario';
import { fmt, markdownTable, table } from '../support/table';
import { BURST_TENANT } from './burst';

/**
 * On demand (issue 38 item 4): work submitted the moment it exists — what a job queue is for —
 * as an open-loop ladder of rates (bench/support/on-demand/open-loop.ts), on Baton in cluster
 * mode through its public API, BullMQ, graphile-worker and the floor (Baton's shape with nothing
 * else: bench/support/on-demand/floor-target.ts), one system after the other in one run, each on
 * a store of its own (scripts/mariadb.sh, redis.sh, postgres.sh on ports of this
 * benchmark). Per system and rate: starts/s, submission → handler start, answer time, refused,
 * unanswered, lost, duplicated, CPU per 1,000 runs per process, and each series' knee.
 */

const SYSTEMS = ['baton', 'bullmq', 'graphile-worker', 'floor'] as const;
type SystemKey = (typeof SYSTEMS)[number];
const SERIES = ['single', 'batched', 'client', 'events', 'events-batched', 'events-client'] as const;
/** Each series' steps' prefix of their submissions' keys (unique across a run). */
const STEP_PREFIX: Record<Series, string> = { single: 's', batched: 'b', client: 'c', events: 'e', 'events-batched': 'E', 'events-client': 'C' };
/** The series run when --series is not given: the events series are Baton's alone (--series=events,events-batched). */
const DEFAULT_SERIES: readonly Series[] = ['single', 'batched', 'client'];
type Series = (typeof SERIES)[number];

const DEFAULT_RATES = '100,250,500,1000,2000,4000';
/** Manual tasks (Baton) and job names (peers) the submissions are spread over. */
const TASKS = 8;
/** Before the ladder: submissions at this rate for WARMUP_S, not measured (connections, JIT, pools). */
const WARMUP_RATE = 50;
const WARMUP_S = 4;
/**
 * Before a series' first step: its own path at its first rate (at most this), for SERIES_WARMUP_S,
 * not measured. The warm-up above takes single triggers only, and a path the JIT first meets in a
 * measured step pays its compilation there: the client series' first step at 500/s measured start
 * p50 / p99 42 / 121 ms, the same step repeated 29 / 57 and 23 / 54 (2026-12-06), the engines'
 * CPU a run 0.65 → 0.53 ms. A long-running deployment has compiled its paths long before.
 */
const SERIES_WARMUP_MAX_RATE = 500;
const SERIES_WARMUP_S = 5;
/** Each process's idle CPU rate is measured this long before the ladder and taken off each step's. */
const IDLE_S = 5;
/** After a system's last step: nothing started for this long (or SETTLE_MAX_MS) and what is still waiting is lost for good. */
const SETTLE_QUIET_MS = 10_000;
const SETTLE_MAX_MS = 60_000;

interface SystemRun {
  system: SystemKey;
  settings: Record<string, unknown>;
  idleCpuPerSec: Record<string, number>;
  /** Times each process went to sleep a second while idle (each a wake-up). */
  idleSleepsPerSec: Record<string, number>;
  steps: StepFigures[];
  /** Series not run, and why (Baton's batched series until its batch API exists; rates above a saturated one). */
  skipped: Array<{ series: Series; rate: number | null; why: string }>;
}

interface Plan {
  rates: number[];
  seconds: number;
  series: Series[];
  batch: number;
  drainS: number;
  maxBacklogS: number;
  pastSaturation: boolean;
  /** `--kill=engine|console`: SIGKILL of one Baton process midway through the first step (null: none). */
  kill: KillTarget | null;
}

async function runSystem(target: OnDemandTarget, plan: Plan, log: (s: string) => void): Promise<SystemRun> {
  const book = new StartBook();
  log(`  warm-up: ${WARMUP_RATE}/s for ${WARMUP_S} s`);
  await runStep(target, book, { rate: WARMUP_RATE, seconds: WARMUP_S, batch: 1, maxBacklogS: 30, drainS: 30 }, 'w', TASKS);
  // Profiled from here on (the idle measurement below also lets the profilers' start-up stall pass).
  target.startProfiling?.();
  const idleMeter = new CpuMeter(target.pids);
  const client0 = process.cpuUsage();
  await sleep(IDLE_S * 1000);
  const client = process.cpuUsage(client0);
  const idleCpuPerSec = Object.fromEntries(Object.entries({ ...idleMeter.used(), client: (client.user + client.system) / 1e6 }).map(([k, v]) => [k, +(v / IDLE_S).toFixed(4)]));
  const idleSleepsPerSec = Object.fromEntries(Object.entries(idleMeter.slept()).map(([k, v]) => [k, +(v / IDLE_S).toFixed(1)]));
  const idle = { cpuPerSec: idleCpuPerSec, sleepsPerSec: idleSleepsPerSec };
  log(`  idle CPU (s/s): ${JSON.stringify(idleCpuPerSec)}; sleeps a second: ${JSON.stringify(idleSleepsPerSec)}`);
  const runs: StepRun[] = [];
  const skipped: SystemRun['skipped'] = [];
  for (const series of plan.series) {
    const batch = series === 'batched' || series === 'events-batched' ? plan.batch : 1;
    const viaEvents = series === 'events' || series === 'events-batched' || series === 'events-client';
    const viaClient = series === 'client' || series === 'events-client';
    if (viaEvents && !(series === 'events-client' ? target.emitViaClient : target.emitEvents)) {
      skipped.push({ series, rate: null, why: 'no events' });
      log(`  ${series}: not run — no events`);
      continue;
    }
    if (series === 'client' && !target.submitViaClient) {
      skipped.push({ series, rate: null, why: 'its single submission already is its client library’s' });
      log(`  ${series}: not run — the single series is its client library's`);
      continue;
    }
    if (batch > 1 && !viaEvents && !target.submitBatch) {
      skipped.push({ series, rate: null, why: target.noBatchReason ?? 'no batch API' });
      log(`  ${series}: not run — ${target.noBatchReason}`);
      continue;
    }
    const warmRate = Math.min(plan.rates[0], SERIES_WARMUP_MAX_RATE);
    log(`  ${series} warm-up: ${warmRate}/s for ${SERIES_WARMUP_S} s`);
    await runStep(target, book, { rate: warmRate, seconds: SERIES_WARMUP_S, batch, viaClient, viaEvents, maxBacklogS: plan.maxBacklogS, drainS: plan.drainS }, `w${STEP_PREFIX[series]}`, TASKS);
    await sleep(1_000);
    let saturatedAt: number | null = null;
    for (const [i, rate] of plan.rates.entries()) {
      if (saturatedAt !== null && !plan.pastSaturation) {
        skipped.push({ series, rate, why: `saturated at ${saturatedAt}/s` });
        continue;
      }
      const fault = plan.kill && target.kill && runs.length === 0 ? plan.kill : null;
      const spec: StepSpec = { rate, seconds: plan.seconds, batch, viaClient, viaEvents, maxBacklogS: plan.maxBacklogS, drainS: plan.drainS, midway: fault ? () => target.kill!(fault) : undefined };
      const run = await runStep(target, book, spec, `${STEP_PREFIX[series]}${i}`, TASKS);
      runs.push(run);
      const f = stepFigures(target.system, run, book, idle);
      if (run.fault) log(`  ${series} ${rate}/s: ${run.fault}`);
      log(
        `  ${series} ${rate}/s: ${f.startsPerSec} starts/s, start p50/p99 ${f.start.p50}/${f.start.p99} ms, answer p50/p99 ${fmt(f.answer.p50)}/${fmt(f.answer.p99)} ms, refused ${f.refused}, unanswered ${f.unanswered}, lost ${f.lost}, dup ${f.duplicated}${run.stoppedEarly ? ` — ${run.stoppedEarly}` : ''}`,
      );
      if (run.stoppedEarly || f.lost > 0 || f.unanswered > 0) saturatedAt ??= rate;
      await sleep(1_000);
    }
  }
  await settle(target, book, runs, { quietMs: SETTLE_QUIET_MS, maxMs: SETTLE_MAX_MS });
  const steps: StepFigures[] = [];
  for (const r of runs) {
    const stages = (await target.stages?.(r.sends.map((s) => ({ key: s.item.key, sentAt: s.sentAt, answeredAt: s.outcome?.ok ? s.answeredAt : null, startedAt: book.first(s.item.key) })))) ?? {};
    steps.push(stepFigures(target.system, r, book, idle, stages));
  }
  return { system: target.system as SystemKey, settings: target.settings, idleCpuPerSec, idleSleepsPerSec, steps, skipped };
}

function parsePlan(args: readonly string[]): Plan {
  const rates = (option(args, 'rates') ?? DEFAULT_RATES).split(',').map(Number);
  if (rates.some((r) => !(r > 0))) throw new Error(`--rates: "${option(args, 'rates')}" is not a list of positive rates`);
  const series = (option(args, 'series')?.split(',') ?? (option(args, 'batch') ? ['batched'] : [...DEFAULT_SERIES])) as Series[];
  for (const s of series) if (!SERIES.includes(s)) throw new Error(`--series: unknown series "${s}" (known: ${SERIES.join(', ')})`);
  const batch = Number(option(args, 'batch') ?? 100);
  if (!(batch >= 2)) throw new Error(`--batch: "${option(args, 'batch')}" must be at least 2 (single submissions are the single series)`);
  return {
    rates: [...rates].sort((a, b) => a - b),
    seconds: Number(option(args, 'seconds') ?? 10),
    series,
    batch,
    drainS: Number(option(args, 'drain') ?? 30),
    maxBacklogS: Number(option(args, 'max-backlog') ?? 30),
    pastSaturation: args.includes('--past-saturation'),
    kill: parseKill(option(args, 'kill')),
  };
}

function parseKill(value: string | undefined): KillTarget | null {
  if (value === undefined) return null;
  if (value !== 'engine' && value !== 'console') throw new Error(`--kill: "${value}" is not engine or console`);
  return value;
}

function printTables(results: readonly SystemRun[], plan: Plan, failures: ReadonlyArray<{ system: string; error: string }>): void {
  for (const series of plan.series) {
    const steps = results.flatMap((r) => r.steps.filter((s) => s.series === series));
    const rows = steps.map((s) => [
      s.system,
      s.offeredPerSec,
      s.submitted,
      s.startsPerSec,
      `${fmt(s.start.p50)} / ${fmt(s.start.p90)} / ${fmt(s.start.p99)}`,
      `${fmt(s.answer.p50)} / ${fmt(s.answer.p99)}`,
      s.refused,
      s.unanswered,
      s.lost === s.neverStarted ? String(s.lost) : `${s.lost} (${s.neverStarted} never)`,
      s.duplicated,
      s.clientLagMs,
      s.stoppedEarly ?? '',
    ]);
    const skipped = results.flatMap((r) => r.skipped.filter((k) => k.series === series).map((k) => `${r.system}${k.rate === null ? '' : ` ${k.rate}/s`}: ${k.why}`));
    const what = {
      single: 'single submissions',
      client: 'single submissions through the client library (Baton: BatonClient.submit)',
      batched: `batched submissions, ${plan.batch} a call`,
      events: 'events, one a call (Baton: POST /api/events), each starting one run',
      'events-batched': `events, ${plan.batch} a call (Baton: POST /api/events { events }), each starting one run`,
      'events-client': 'single events through the client library (Baton: BatonClient.emit), each starting one run',
    }[series];
    console.log(
      `\nOn demand — ${what}, open loop, ${plan.seconds} s a rate: submission → handler start and answer (ms); lost = accepted, not started ${plan.drainS} s after the step\n${table(
        ['system', 'offered/s', 'sent', 'starts/s', 'start p50 / p90 / p99', 'answer p50 / p99', 'refused', 'unanswered', 'lost', 'dup', 'client lag', 'note'],
        rows,
      )}${skipped.length ? `\nnot run: ${skipped.join('; ')}` : ''}\n`,
    );
  }
  const cpuRows = results.flatMap((r) =>
    r.steps.map((s) => {
      const total = Object.entries(s.cpuPer1000Runs).filter(([k]) => k !== 'client').reduce((a, [, v]) => a + v, 0);
      const sleeps = s.sleepsPerRun;
      const byProcess = Object.entries(s.cpuPer1000Runs).map(([k, v]) => `${k} ${fmt(v)}${k in sleeps ? ` (${fmt(sleeps[k])})` : ''}`);
      return [r.system, s.series, s.offeredPerSec, byProcess.join(', '), fmt(total)];
    }),
  );
  console.log(
    `On demand — CPU s per 1,000 runs (= ms per run) by process, net of its idle rate, and (in brackets) the times it went to sleep a run, each a wake-up; total leaves out the client (this process, the load generator)\n${table(['system', 'series', 'offered/s', 'by process', 'total'], cpuRows)}\n`,
  );
  const inside = results.flatMap((r) => r.steps.filter((s) => Object.keys(s.stages).length || s.storePerRun));
  if (inside.length) {
    const stageNames = [...new Set(inside.flatMap((s) => Object.keys(s.stages)))];
    const counterNames = [...new Set(inside.flatMap((s) => Object.keys(s.storePerRun ?? {})))];
    console.log(
      `On demand — where the time goes (p50 / p99 ms; Baton: the client's wait for a connection, the run rows' created_at and dispatch times) and the store's statements per run (server-wide counters over the step)\n${table(
        ['system', 'series', 'offered/s', ...stageNames, ...counterNames],
        inside.map((s) => [s.system, s.series, s.offeredPerSec, ...stageNames.map((n) => (s.stages[n] ? `${fmt(s.stages[n].p50)} / ${fmt(s.stages[n].p99)}` : '')), ...counterNames.map((n) => s.storePerRun?.[n] ?? NaN)]),
      )}\n`,
    );
  }
  const timed = results.flatMap((r) => r.steps.flatMap((s) => Object.entries(s.sqlPerRun ?? {}).map(([proc, t]) => ({ s, proc, t }))));
  if (timed.length) {
    console.log(
      `On demand — SQL per run by process (--sql-timing): statements, their round trips (ms, lock waits and commits included) and the costliest digests (count per run × mean ms)\n${table(
        ['series', 'offered/s', 'process', 'statements', 'ms', 'costliest'],
        timed.map(({ s, proc, t }) => [s.series, s.offeredPerSec, proc, t.statements, t.ms, t.top.slice(0, 5).map((d) => `${d.perRun}×${d.meanMs} ${d.sql.slice(0, 70)}`).join(' | ')]),
      )}\n`,
    );
  }
  const refusals = results.flatMap((r) => r.steps.flatMap((s) => Object.entries(s.refusals).map(([why, n]) => [r.system, s.series, s.offeredPerSec, n, why])));
  if (refusals.length) console.log(`On demand — refusals by reason\n${table(['system', 'series', 'offered/s', 'n', 'reason'], refusals)}\n`);
  console.log(
    `On demand — knee: the highest offered rate with p99 ≤ ${KNEE_P99_MS} ms, nothing refused, unanswered or lost, not saturated\n${table(
      ['system', ...plan.series],
      results.map((r) => [r.system, ...plan.series.map((series) => (r.skipped.some((k) => k.series === series && k.rate === null) ? 'not run' : fmt(knee(r.steps.filter((s) => s.series === series)) ?? NaN)))]),
    )}\n`,
  );
  // The issue's table: one row per rate, each system's starts/s and p50 / p99 side by side.
  for (const series of plan.series) {
    const present = results.filter((r) => r.steps.some((s) => s.series === series));
    if (!present.length) continue;
    const headers = ['offered /s', ...present.flatMap((r) => [`${r.system} starts/s`, `${r.system} p50 / p99`, `${r.system} answer p50`])];
    const rows = plan.rates.map((rate) => [
      rate.toLocaleString('en'),
      ...present.flatMap((r) => {
        const s = r.steps.find((x) => x.series === series && x.offeredPerSec === rate);
        if (!s) return ['not run', '', ''];
        const waiting = s.unanswered + s.lost;
        return [`${fmt(s.startsPerSec)}${waiting ? ` (${waiting.toLocaleString('en')} unanswered or lost)` : ''}${s.stoppedEarly ? ', saturated' : ''}`, `${fmt(s.start.p50)} / ${fmt(s.start.p99)} ms`, `${fmt(s.answer.p50)} ms`];
      }),
    ]);
    console.log(`On demand — ${series}, side by side (markdown)\n${markdownTable(headers, rows)}\n`);
  }
  if (failures.length) console.log(`On demand — failed systems\n${table(['system', 'error'], failures.map((f) => [f.system, f.error.slice(0, 200)]))}\n`);
}

export const onDemand: Scenario = {
  name: 'on-demand',
  description: 'work submitted on demand, open loop at a ladder of rates, on Baton (cluster, public API), BullMQ, graphile-worker and the floor (the same shape with nothing else): submission → start, answer, lost, dup, CPU, knee',
  quickSet: false,
  options: (
    [
      [`--rates=${DEFAULT_RATES}`, 'offered submissions (batched: items) per second, one step each'],
      ['--seconds=10', 'how long each step sends'],
      ['--series=single,batched,client', 'single submissions (Baton: one HTTP trigger each), batched ones, single ones through the client library (Baton: the Node SDK\'s BatonClient.submit); Baton also events and events-batched (POST /api/events, each event starting one run) and events-client (BatonClient.emit); --batch=N alone: batched only'],
      ['--batch=100', "items per call in the batched series (Baton POST /api/runs/batch, BullMQ addBulk, graphile-worker addJobs)"],
      [`--systems=${SYSTEMS.join(',')}`, 'which systems'],
      ['--drain=30', 'seconds after a step for its answers and starts; accepted and not started by then: lost'],
      ['--max-backlog=30', 'a step stops sending once its backlog (waiting ÷ recent starts/s, or the oldest waiting) passes this many seconds'],
      ['--past-saturation', 'also run the rates above one that saturated (default: skipped)'],
      ['--kill=engine|console', "Baton only: SIGKILL of an engine (left dead) or of the console (started again on its port) when half of the first step has been sent; with --baton-nodes, of the first node either way (console and engine: started again on its port); lost and dup then count what the fault cost"],
      ['--concurrency=50', "each peer worker's concurrency, and Baton's executors'"],
      ['--baton-defaults', "Baton's tenant at its default rate (1,000/s, burst 2,000) and executors at the SDK's defaults (concurrency 4, queue 100); default: both opened"],
      ['--redis-port=19901, --postgres-port=19911, --mariadb-port=19921', 'the private stores (scripts/*.sh)'],
      ['--engine-env=K=V,…', "Baton only: settings for both engines (e.g. BATON_ACK_HOLD_MS=0, to see what a default is worth); default: none"],
      ['--client-in-flight=N', "Baton only: the Node SDK client's maxBatchesInFlight in the client series; default: the SDK's"],
      ['--baton-nodes', "Baton only: as 2 nodes (`baton node`: a console and an engine in one process) instead of 1 console and 2 engines; submissions go to the first"],
      ['--other-tenants=N', "Baton only: N more tenants in the engines' group, idle (no task, no executor): what a platform's other customers cost a busy one; default: 0"],
      ['--sql-timing', 'Baton only: the console and engines time every statement (bench/support/sql-timing.cjs); per step, statements and round-trip ms per run by process, and the costliest'],
      ['--profile', "Baton only: V8 CPU profiles of the console, engines (or nodes) and executors over the ladder (bench/results/profiles/on-demand<tag>/; `node -r ./bench/register.cjs bench/profile-summary.ts <dir>` sums them)"],
      ['--tag=-x', 'result file suffix: bench/results/on-demand-x.json'],
    ] as const
  )
    .map(([flag, what]) => `${flag.padEnd(40)} ${what}`)
    .join('\n'),
  async run({ args, log }) {
    const plan = parsePlan(args);
    const systems = (option(args, 'systems')?.split(',') ?? [...SYSTEMS]) as SystemKey[];
    for (const s of systems) if (!SYSTEMS.includes(s)) throw new Error(`--systems: unknown system "${s}" (known: ${SYSTEMS.join(', ')})`);
    const concurrency = Number(option(args, 'concurrency') ?? 50);
    const batonDefaults = args.includes('--baton-defaults');
    const otherTenants = Number(option(args, 'other-tenants') ?? 0);
    if (!(Number.isInteger(otherTenants) && otherTenants >= 0)) throw new Error(`--other-tenants: "${option(args, 'other-tenants')}" must be a whole number, 0 or more`);
    const results: SystemRun[] = [];
    const failures: Array<{ system: string; error: string }> = [];
    log(`on-demand: rates ${plan.rates.join(', ')} /s, ${plan.seconds} s each, series ${plan.series.join(', ')}${plan.series.includes('batched') ? ` (${plan.batch} a call)` : ''}, systems ${systems.join(', ')}`);
    for (const system of systems) {
      log(`on-demand: ${system}…`);
      let server: PeerServer | null = null;
      let target: OnDemandTarget | null = null;
      try {
        if (system === 'baton') {
          server = PeerServer.start('mariadb', Number(option(args, 'mariadb-port') ?? 19921));
          target = await startBaton(
            {
              tasks: TASKS,
              mariadb: server,
              tenant: batonDefaults ? { ratePerSec: 1000, burst: 2000 } : BURST_TENANT,
              executorEnv: batonDefaults
                ? { BATON_EXECUTOR_CONCURRENCY: String(EXECUTOR_DEFAULTS.concurrency), BATON_EXECUTOR_QUEUE_LIMIT: String(EXECUTOR_DEFAULTS.queueLimit) }
                : { BATON_EXECUTOR_CONCURRENCY: String(concurrency), BATON_EXECUTOR_QUEUE_LIMIT: '20000' },
              profileDir: args.includes('--profile') ? join(RESULTS_DIR, 'profiles', `on-demand${option(args, 'tag') ?? ''}`) : null,
              sqlTiming: args.includes('--sql-timing'),
              engineEnv: parseEngineEnv(option(args, 'engine-env')),
              clientInFlight: option(args, 'client-in-flight') === undefined ? undefined : Number(option(args, 'client-in-flight')),
              otherTenants,
              nodes: args.includes('--baton-nodes'),
            },
            log,
          );
        } else if (system === 'floor') {
          server = PeerServer.start('mariadb', Number(option(args, 'mariadb-port') ?? 19921));
          target = await startFloor(server, log);
        } else {
          server = system === 'bullmq' ? PeerServer.start('redis', Number(option(args, 'redis-port') ?? 19901)) : PeerServer.start('postgres', Number(option(args, 'postgres-port') ?? 19911));
          target = await startPeer(system, server, concurrency, log);
        }
        results.push(await runSystem(target, plan, log));
      } catch (err) {
        // One system's failure does not cost the others' figures.
        log(`  ${system} failed: ${(err as Error).stack ?? err}`);
        failures.push({ system, error: (err as Error).message });
      } finally {
        await target?.close().catch((err: Error) => log(`  ${system}: closing failed: ${err.message}`));
        server?.stop();
      }
    }
    printTables(results, plan, failures);
    writeResult(`on-demand${option(args, 'tag') ?? ''}.json`, {
      benchmark: 'on-demand',
      machine: machine(),
      plan: { ...plan, tasks: TASKS, warmup: { rate: WARMUP_RATE, seconds: WARMUP_S, perSeries: { maxRate: SERIES_WARMUP_MAX_RATE, seconds: SERIES_WARMUP_S } }, idleSeconds: IDLE_S, kneeP99Ms: KNEE_P99_MS, concurrency, batonDefaults, otherTenants },
      results,
      failures,
    });
    return [
      ...results.flatMap((r) =>
        plan.series
          .filter((series) => r.steps.some((s) => s.series === series))
          .map((series): [string, string] => {
            const steps = r.steps.filter((s) => s.series === series);
            const top = steps[steps.length - 1];
            return [`on-demand ${r.system} ${series}`, `knee ${fmt(knee(steps) ?? NaN)}/s; at ${top.offeredPerSec}/s: ${top.startsPerSec} starts/s, p99 ${fmt(top.start.p99)} ms, lost ${top.lost}, dup ${top.duplicated}`];
          }),
      ),
      ...failures.map((f): [string, string] => [`on-demand ${f.system}`, `FAILED: ${f.error.slice(0, 120)}`]),
    ];
  },
};
