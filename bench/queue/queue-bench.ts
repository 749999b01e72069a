/**
 * Timer-queue benchmark: PRAM calendar queue vs naive (Brown) calendar queue
 * vs binary heap, on the engine's workload shape.
 *
 *   npm run bench:queue             # N = 10k, 100k, 1M; < ~2 min
 *   npm run bench:queue -- --quick  # N = 10k, one repetition (CI smoke)
 *   npm run bench:queue -- --sizes=100000,1000000 --reps=1 --dists=bursty --only=pram-cq,binary-heap
 *
 * Per N and distribution (uniform, bursty), a hold-model run:
 *   fill   enqueue N events;
 *   (N/2 untimed hold rounds, to reach the steady state)
 *   hold   max(N, 500k) rounds of peekTime / dequeue-one / enqueue-one, the
 *          new event due at (time just served) + a draw from the distribution;
 *   burst  N/10 events enqueued at one future instant, then popDue(that
 *          instant): the "thousands due at the same millisecond" case.
 * ops/s = queue operations / seconds, per phase and overall (fill + hold +
 * burst); the median of the repetitions is reported. resizes = rebuilds the
 * resize policy asked for; retunes = rebuilds that only re-sampled a stale
 * bucket width. Every structure must produce the same dequeue
 * order (checked by a rolling hash), or the run aborts.
 *
 * Writes bench/results/queue.json.
 *
 * How it runs: `tsc -p bench/queue/tsconfig.json` compiles this file and the
 * scheduling lib (imported by relative path, so no alias resolution at run
 * time) into dist/bench-queue, and plain `node --expose-gc` runs it: no tsx
 * or ts-node dependency, and the code measured is what tsc emits for prod.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BinaryHeap } from '../../libs/scheduling/src/binary-heap';
import { CalendarQueue } from '../../libs/scheduling/src/calendar-queue/calendar-queue';
import { PramResizePolicy } from '../../libs/scheduling/src/calendar-queue/pram-resize-policy';
import { NaiveResizePolicy } from '../../libs/scheduling/src/calendar-queue/resize-policy';
import type { TimerQueue } from '../../libs/scheduling/src/timer-queue';
import { Workload, type DistributionName } from './workloads';

type StructureName = 'pram-cq' | 'naive-cq' | 'binary-heap';

const structures: Record<StructureName, () => TimerQueue<number>> = {
  'pram-cq': () => new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() }),
  'naive-cq': () => new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy() }),
  'binary-heap': () => new BinaryHeap<number>(),
};

interface RunResult {
  fillOps: number;
  holdOps: number;
  burstOps: number;
  totalOps: number;
  resizes: number | null;
  retunes: number | null;
  buckets: number | null;
  checksum: number;
}

const BASE_TIME = 1_700_000_000_000;
/** Timed hold rounds at least (not with --quick), so small queues are timed over more than a few milliseconds. */
const MIN_HOLD_ROUNDS = 500_000;

function run(make: () => TimerQueue<number>, dist: DistributionName, n: number, seed: number, minRounds: number): RunResult {
  const warmup = Math.floor(n / 2);
  const rounds = Math.max(n, minRounds);
  const burst = Math.max(1, Math.floor(n / 10));
  const d = new Workload(dist, seed, n + warmup + rounds + burst);
  const prio = d.priorities;
  const q = make();
  let id = 0;
  let hash = 0;

  let t0 = performance.now();
  for (let i = 0; i < n; i++) {
    q.enqueue(id, d.time(BASE_TIME, id), prio[id]);
    id++;
  }
  const fillMs = performance.now() - t0;

  // The engine's loop: look at the next due time, take the run, plan the next.
  // Untimed first: the pending set drifts from its initial shape to the steady
  // state the hold model measures (and the JIT settles).
  let now = BASE_TIME;
  for (let i = 0; i < warmup; i++) {
    now = q.peekTime() as number;
    hash = (Math.imul(hash, 31) + (q.dequeue() as number)) | 0;
    q.enqueue(id, d.time(now, id), prio[id]);
    id++;
  }
  t0 = performance.now();
  for (let i = 0; i < rounds; i++) {
    now = q.peekTime() as number;
    hash = (Math.imul(hash, 31) + (q.dequeue() as number)) | 0;
    q.enqueue(id, d.time(now, id), prio[id]);
    id++;
  }
  const holdMs = performance.now() - t0;

  t0 = performance.now();
  const instant = now + 1000;
  for (let i = 0; i < burst; i++) {
    q.enqueue(id, instant, prio[id]);
    id++;
  }
  const fired = q.popDue(instant);
  const burstMs = performance.now() - t0;
  for (const got of fired) hash = (Math.imul(hash, 31) + got) | 0;

  const stats = q instanceof CalendarQueue ? q.stats : undefined;
  const ops = { fill: n, hold: 2 * rounds, burst: burst + fired.length };
  return {
    fillOps: ops.fill / (fillMs / 1000),
    holdOps: ops.hold / (holdMs / 1000),
    burstOps: ops.burst / (burstMs / 1000),
    totalOps: (ops.fill + ops.hold + ops.burst) / ((fillMs + holdMs + burstMs) / 1000),
    resizes: stats ? stats.resizes : null,
    retunes: stats ? stats.retunes : null,
    buckets: stats ? stats.buckets : null,
    checksum: hash,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Value of `--name=value` on the command line. */
function argValue(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

const gc = (globalThis as { gc?: () => void }).gc;

function main(): void {
  const quick = process.argv.includes('--quick');
  const sizesArg = argValue('--sizes');
  const repsArg = argValue('--reps');
  const sizes = sizesArg ? sizesArg.split(',').map(Number) : quick ? [10_000] : [10_000, 100_000, 1_000_000];
  const repsFor = (n: number) => (repsArg ? Number(repsArg) : quick ? 1 : n >= 1_000_000 ? 3 : 5);
  const dists = (argValue('--dists')?.split(',') ?? ['uniform', 'bursty']) as DistributionName[];
  const names = (argValue('--only')?.split(',') ?? Object.keys(structures)) as StructureName[];
  const rows: Array<Record<string, unknown>> = [];
  const started = Date.now();

  // Warm the JIT on a small case so the first measured structure is not penalised.
  for (const name of names) run(structures[name], 'bursty', 5_000, 1, 0);

  for (const n of sizes) {
    for (const dist of dists) {
      const perStructure = new Map<StructureName, RunResult[]>(names.map((s) => [s, []]));
      for (let rep = 0; rep < repsFor(n); rep++) {
        // Rotate the order each repetition so no structure always runs on a fresh (or tired) heap.
        for (let k = 0; k < names.length; k++) {
          const name = names[(k + rep) % names.length];
          gc?.();
          perStructure.get(name)?.push(run(structures[name], dist, n, 1000 + rep, quick ? 0 : MIN_HOLD_ROUNDS));
        }
      }
      const checksums = new Set(names.map((s) => perStructure.get(s)?.[0].checksum));
      if (checksums.size > 1) throw new Error(`structures disagree on dequeue order (N=${n}, ${dist})`);
      for (const name of names) {
        const rs = perStructure.get(name) as RunResult[];
        rows.push({
          n,
          distribution: dist,
          structure: name,
          repetitions: rs.length,
          fillOpsPerSec: Math.round(median(rs.map((r) => r.fillOps))),
          holdOpsPerSec: Math.round(median(rs.map((r) => r.holdOps))),
          burstOpsPerSec: Math.round(median(rs.map((r) => r.burstOps))),
          totalOpsPerSec: Math.round(median(rs.map((r) => r.totalOps))),
          resizes: rs[0].resizes,
          retunes: rs[0].retunes,
          finalBuckets: rs[0].buckets,
        });
      }
    }
  }

  printTable(rows);
  if (quick) console.log('\n--quick: a smoke test (tiny runs, cold JIT); the numbers are not comparable.');
  const out = {
    benchmark: 'timer-queue hold model',
    quick,
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    date: new Date().toISOString(),
    durationSec: Math.round((Date.now() - started) / 100) / 10,
    workload:
      'fill N; N/2 untimed hold rounds; max(N, 500k) hold rounds (peekTime, dequeue one, enqueue one); burst of N/10 at one instant drained by popDue',
    results: rows,
  };
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'queue.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(`\nwrote bench/results/queue.json (${out.durationSec}s)`);
}

function printTable(rows: Array<Record<string, unknown>>): void {
  const m = (v: unknown) => ((v as number) / 1e6).toFixed(2);
  const header = ['N', 'dist', 'structure', 'fill Mops/s', 'hold Mops/s', 'burst Mops/s', 'total Mops/s', 'resizes', 'retunes', 'hold vs heap', 'total vs heap'];
  const lines = rows.map((r) => {
    const heap = rows.find((h) => h.n === r.n && h.distribution === r.distribution && h.structure === 'binary-heap');
    const ratio = (k: string) => (heap ? ((r[k] as number) / (heap[k] as number)).toFixed(2) + 'x' : '');
    return [
      (r.n as number).toLocaleString('en-US'),
      String(r.distribution),
      String(r.structure),
      m(r.fillOpsPerSec),
      m(r.holdOpsPerSec),
      m(r.burstOpsPerSec),
      m(r.totalOpsPerSec),
      r.resizes === null ? '-' : String(r.resizes),
      r.retunes === null ? '-' : String(r.retunes),
      ratio('holdOpsPerSec'),
      ratio('totalOpsPerSec'),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => '| ' + cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |';
  console.log(fmt(header));
  console.log('|' + widths.map((w, i) => (i < 3 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const l of lines) console.log(fmt(l));
}

main();
