import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { configureConsoleApp, ConsoleModule } from '../../apps/console/src';
import { TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { invocationCheck, percentile } from '../../test/cluster/support/figures';
import { insertApiKey } from '../../test/console/console-test-kit';
import { machine, mariadbServerPid, RESULTS_DIR, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { CpuMeter } from '../support/cpu-meter';
import { engineTakeover, killBusiestEngine } from '../support/faults/engine-kill';
import { waitAllEnded } from '../support/faults/common';
import { startFigures, type StartFigures } from '../support/peers/start-figures';
import { BURST_EXECUTOR_ENV, BURST_TENANT, stats, type StageStats } from './burst';

/**
 * Burst through the API (issue 11 item 7): what a user sees. N ONCE tasks due at the same
 * instant T are created through the console's REST API — `POST /api/tasks/batch`, 1,000 a
 * request, an admin API key, the console in this process on the cluster's MariaDB — so the
 * planners turn them into runs and the claimers hold those until T, as for any user's tasks.
 * Lateness is handler start − T (the planner included), duplicates and missing runs from the
 * executors' records. Beside it, what creating the tasks costs: the batches' time, and the same
 * number of tasks created one POST at a time (the only way before the batch route).
 */

const PER_BATCH = 1000;

export interface ApiBurstCase {
  n: number;
  engines: number;
  createMs: { batched: number; perBatchP50: number };
  stages: { dispatched: StageStats; started: StageStats };
  /** Handler start − T from the executors' records (Date.now() in the handler), duplicates among them. */
  handlerStarts: StartFigures;
  makespanMs: number;
  duplicates: number;
  missing: number;
  /** Runs not ended when the wait stopped. */
  notEnded: number;
  states: Record<string, number>;
  /** Engines, executors and MariaDB (when on this machine), from the end of the task creation to the end of the wait. */
  cpuSec: Record<string, number>;
  /** The part of `cpuSec` used before T: planning and claiming the burst, and the idle loops of the lead. */
  cpuBeforeTSec: Record<string, number>;
  /** The engine killed, and the runs it held (CLAIMED or DISPATCHED) at the kill. */
  killed?: { killedAfterTMs: number; victim: string; held: number; takeoverMs: number | null };
}

export interface ApiBurstOptions {
  /** Runs (ONCE tasks due at once) run through before the burst; default none. */
  warmup?: number;
  /** SIGKILL the engine holding the most runs this long after T. */
  killAfterMs?: number;
  /** A MariaDB server of this benchmark alone (default: the test server, BATON_TEST_MYSQL_URL). */
  mysqlServerUrl?: string;
  /** V8 CPU profiles of the engines and executors from T to their stop, written here (bench/support/cpu-profile.cjs). */
  profileDir?: string;
  /** BATON_* settings of the engines beyond the cluster tests' (an engine gets no BATON_* variable of this process). */
  engineEnv?: Record<string, string>;
}

/** The console in this process on the cluster's database, with an admin API key of the cluster's tenant. */
export async function consoleOn(c: Cluster): Promise<{ app: INestApplication; url: string; key: Record<string, string> }> {
  const app = await NestFactory.create(ConsoleModule.forRoot({ dataSource: c.ds, passwordHashRounds: 4 }), { bodyParser: false, logger: ['error'], abortOnError: false });
  configureConsoleApp(app, { swagger: false, web: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}`, key: await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN') };
}

async function post(url: string, key: Record<string, string>, body: unknown): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...key }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, text };
}

const onceTask = (name: string, at: number) => ({ name, executorApp: 'demo', handler: 'noop', trigger: { kind: 'ONCE', at } });

/**
 * One burst through the API: `engines` engines and 2 executors (the burst scenario's opened
 * settings), `warmup` runs first, then `n` ONCE tasks due at T created in batches; optionally the
 * busiest engine SIGKILLed at T + `killAfterMs` (bench/support/faults/engine-kill.ts).
 */
export async function runApiBurst(n: number, engines: number, log: (s: string) => void, options: ApiBurstOptions = {}): Promise<ApiBurstCase> {
  const c = await Cluster.open(`ba${n}x${engines}`, 'acme', { mysqlServerUrl: options.mysqlServerUrl });
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    const profiled: Record<string, string> = options.profileDir ? { NODE_OPTIONS: `-r ${RESULTS_DIR}/../support/cpu-profile.cjs`, BENCH_PROFILE_DIR: options.profileDir } : {};
    const engineProcs = await c.startEngines(engines, { ...options.engineEnv, ...profiled });
    const executors = await c.startExecutors(2, { ...BURST_EXECUTOR_ENV, ...profiled });
    const api = await consoleOn(c);
    try {
      const warmup = options.warmup ?? 0;
      // Creating N tasks takes ~1 ms each on a quiet machine; a warm-up measures this one's pace.
      let msPerTask = 1;
      if (warmup > 0) {
        const t0 = performance.now();
        await createOnceTasks(api, warmup, 'warmup', Date.now() + 2_000);
        msPerTask = Math.max(1, (2 * (performance.now() - t0)) / warmup);
        if (!(await waitAllEnded(c, warmup, { timeoutMs: 60_000 + warmup * 20, stallMs: 30_000, log })).complete) throw new Error(`the ${warmup} warm-up runs did not end`);
      }
      const warmupRunIds = new Set((await c.runs()).map((r) => r.id));
      const due = Math.ceil((Date.now() + 5_000 + n * msPerTask) / 1000) * 1000;
      const createStart = performance.now();
      const perBatch = await createOnceTasks(api, n, 'burst', due);
      const batched = performance.now() - createStart;
      if (Date.now() > due - 2_500) log(`  warning: creating the tasks ended ${due - Date.now()} ms before T`);
      const mariadbPid = await mariadbServerPid(c.ds);
      const cpu = new CpuMeter({
        ...(mariadbPid ? { mariadb: mariadbPid } : {}),
        ...Object.fromEntries([...engineProcs, ...executors].map((p) => [p.name, p.pid])),
      });
      let killed: ApiBurstCase['killed'];
      if (options.killAfterMs !== undefined) {
        await sleep(Math.max(0, due + options.killAfterMs - Date.now()));
        cpu.sample();
        const k = await killBusiestEngine(c, engineProcs);
        log(`  killed ${k.victim.nodeId} (pid ${k.victim.pid}) at T+${k.killedAt - due} ms holding ${k.heldIds.length} runs`);
        killed = { killedAfterTMs: k.killedAt - due, victim: k.victim.nodeId, held: k.heldIds.length, takeoverMs: await engineTakeover(c, k.victim, k.heldIds, k.killedAt) };
      }
      await sleep(Math.max(0, due - Date.now())); // the wait's stall clock starts at T, not during the lead
      const cpuBeforeTSec = cpu.used();
      if (options.profileDir) for (const p of [...engineProcs, ...executors]) process.kill(p.pid, 'SIGUSR2'); // the profilers start at T
      const waited = await waitAllEnded(c, warmupRunIds.size + n, { timeoutMs: 60_000 + n * 20, stallMs: 30_000, log, onPoll: () => cpu.sample() });
      const cpuSec = cpu.used();
      await sleep(300); // the last record lines
      const runs = (await c.runs()).filter((r) => !warmupRunIds.has(r.id));
      const records = c.records();
      const check = invocationCheck(records, runs.map((r) => r.id));
      const rel = (pick: (r: (typeof runs)[number]) => number | null) => runs.map(pick).filter((v): v is number => v !== null).map((v) => v - due);
      const states: Record<string, number> = {};
      for (const r of runs) states[r.state] = (states[r.state] ?? 0) + 1;
      const result: ApiBurstCase = {
        n,
        engines,
        createMs: { batched: Math.round(batched), perBatchP50: Math.round(percentile(perBatch, 50)) },
        stages: { dispatched: stats(rel((r) => r.dispatchedAt)), started: stats(rel((r) => r.startedAt)) },
        handlerStarts: startFigures(
          records.map((r) => ({ k: String(r.runId), pid: r.pid, at: r.at })),
          runs.map((r) => String(r.id)),
          due,
        ),
        makespanMs: Math.max(...rel((r) => r.finishedAt)),
        duplicates: check.duplicated.length,
        missing: check.missing.length + Math.max(0, n - runs.length),
        notEnded: n - (waited.ended - warmupRunIds.size),
        states,
        cpuSec,
        cpuBeforeTSec,
        killed,
      };
      failed = false;
      return result;
    } finally {
      await api.app.close();
    }
  } finally {
    await c.close(failed);
  }
}

/** Creates `n` ONCE tasks due at `at` with POST /api/tasks/batch, 1,000 a request; returns each request's time (ms). */
export async function createOnceTasks(api: { url: string; key: Record<string, string> }, n: number, prefix: string, at: number): Promise<number[]> {
  const perBatch: number[] = [];
  for (let i = 0; i < n; i += PER_BATCH) {
    const tasks = Array.from({ length: Math.min(PER_BATCH, n - i) }, (_, j) => onceTask(`${prefix}-${i + j}`, at));
    const res = await post(`${api.url}/api/tasks/batch`, api.key, { tasks });
    if (res.status !== 201) throw new Error(`POST /api/tasks/batch → ${res.status} ${res.text.slice(0, 300)}`);
    perBatch.push(res.ms);
  }
  return perBatch;
}

/** Creating `n` tasks one POST at a time, the way it was done before the batch route. */
async function createOneByOne(n: number): Promise<{ n: number; totalMs: number; perPostP50: number; perPostP99: number }> {
  const c = await Cluster.open(`bo${n}`);
  try {
    const api = await consoleOn(c);
    try {
      const at = Date.now() + 86_400_000;
      const times: number[] = [];
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const res = await post(`${api.url}/api/tasks`, api.key, onceTask(`one-${i}`, at));
        if (res.status !== 201) throw new Error(`POST /api/tasks → ${res.status} ${res.text.slice(0, 300)}`);
        times.push(res.ms);
      }
      return { n, totalMs: Math.round(performance.now() - started), perPostP50: +percentile(times, 50).toFixed(1), perPostP99: +percentile(times, 99).toFixed(1) };
    } finally {
      await api.app.close();
    }
  } finally {
    await c.close(false);
  }
}

/** Options: `--cases=1000x1,4000x2` (N x engines; quick: 4000x2), `--one-by-one=4000` (tasks created singly for the comparison; quick 1000, full 4000; 0 skips it). */
export const burstApi: Scenario = {
  name: 'burst-api',
  description: 'N ONCE tasks due at one instant created through POST /api/tasks/batch (planner included): lateness, dup/missing; batch vs one-by-one creation',
  async run({ full, args, log }) {
    const plan = option(args, 'cases')?.split(',').map((c) => c.split('x').map(Number) as [number, number]) ?? (full ? [[1000, 1], [1000, 2], [4000, 2], [10000, 2]] : [[4000, 2]]);
    const oneByOne = Number(option(args, 'one-by-one') ?? (full ? 4000 : 1000));
    const cases: ApiBurstCase[] = [];
    for (const [n, e] of plan) {
      log(`burst-api: ${n} tasks through the API, ${e} engine(s)…`);
      cases.push(await runApiBurst(n, e, log));
    }
    const single = oneByOne > 0 ? await createOneByOne(oneByOne) : null;
    const rows = cases.map((r) => [r.n, r.engines, r.createMs.batched, r.stages.dispatched.p99, r.stages.started.p50, r.stages.started.p99, r.makespanMs, r.duplicates, r.missing]);
    console.log(`Burst through the API — ONCE tasks due at T created with POST /api/tasks/batch (ms after T)\n${table(['N', 'eng', 'create ms', 'disp p99', 'start p50', 'start p99', 'makespan', 'dup', 'missing'], rows)}\n`);
    if (single) console.log(`Creating ${single.n} tasks one POST at a time: ${single.totalMs} ms (p50 ${single.perPostP50} ms, p99 ${single.perPostP99} ms a POST)\n`);
    writeResult(`burst-api${full ? '-full' : ''}.json`, { benchmark: 'burst-api', machine: machine(), executorEnv: BURST_EXECUTOR_ENV, tenant: BURST_TENANT, cases, oneByOne: single });
    return [
      ...cases.map((r): [string, string] => [`burst-api N=${r.n} ${r.engines}e`, `created in ${r.createMs.batched} ms, start p99 ${r.stages.started.p99} ms, dup ${r.duplicates}, missing ${r.missing}`]),
      ...(single ? [[`${single.n} tasks one POST at a time`, `${single.totalMs} ms`] as [string, string]] : []),
    ];
  },
};
