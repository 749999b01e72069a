/**
 * Timer-queue benchmark: PRAM calendar queue vs naive (Brown) calendar queue
 * vs binary heap, hold model (hold-model.ts) at 10k–1M pending events,
 * uniform and bursty arrivals (workloads.ts).
 *
 *   npm run bench -- queue [--full]     # as a scenario of the runner (bench/scenarios/queue.ts)
 *   npm run bench:queue [-- --full]     # the same, standalone (no MariaDB, no suite lock)
 *   npm run bench:queue -- --cases=1000000:bursty --reps=3 --only=pram-cq,binary-heap
 *
 * Quick set: 10k and 100k × uniform/bursty, and 1M bursty (the target's case),
 * ~1 min on 2 cores. --full: 10k/100k/1M × uniform/bursty. Each structure runs
 * `reps` times per case, in a rotating order, after a forced GC; the median is
 * reported. Every structure must produce the same dequeue order (rolling hash),
 * or the run aborts. Writes bench/results/queue.json and queue.svg.
 *
 * How it runs: `tsc -p bench/queue/tsconfig.json` compiles this file and the
 * scheduling lib (imported by relative path, so no alias resolution at run
 * time) into dist/bench-queue, and plain `node --expose-gc` runs it: the code
 * measured is what tsc emits for prod, and GC can be forced between runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { runHoldModel, STRUCTURES, type RunResult, type StructureName } from './hold-model';
import { resultSvg, resultTable, type Row } from './report';
import type { DistributionName } from './workloads';

/** Timed hold rounds at least, so small queues are timed over more than a few milliseconds. */
const MIN_HOLD_ROUNDS = 500_000;

type Case = [n: number, dist: DistributionName];
const QUICK: Case[] = [
  [10_000, 'uniform'],
  [10_000, 'bursty'],
  [100_000, 'uniform'],
  [100_000, 'bursty'],
  [1_000_000, 'bursty'],
];
const FULL: Case[] = [10_000, 100_000, 1_000_000].flatMap((n): Case[] => [
  [n, 'uniform'],
  [n, 'bursty'],
]);

/** Value of `--name=value` on the command line. */
function argValue(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const gc = (globalThis as { gc?: () => void }).gc;

function measure(n: number, dist: DistributionName, names: StructureName[], reps: number): Row[] {
  const perStructure = new Map<StructureName, RunResult[]>(names.map((s) => [s, []]));
  for (let rep = 0; rep < reps; rep++) {
    // Rotate the order each repetition so no structure always runs on a fresh (or tired) heap.
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + rep) % names.length];
      gc?.();
      perStructure.get(name)?.push(runHoldModel(STRUCTURES[name], dist, n, 1000 + rep, MIN_HOLD_ROUNDS));
    }
  }
  if (new Set(names.map((s) => perStructure.get(s)?.[0].checksum)).size > 1) throw new Error(`structures disagree on dequeue order (N=${n}, ${dist})`);
  return names.map((structure) => {
    const rs = perStructure.get(structure) as RunResult[];
    const med = (f: (r: RunResult) => number) => Math.round(median(rs.map(f)));
    return {
      n,
      distribution: dist,
      structure,
      repetitions: rs.length,
      fillOpsPerSec: med((r) => r.fillOps),
      holdOpsPerSec: med((r) => r.holdOps),
      burstOpsPerSec: med((r) => r.burstOps),
      totalOpsPerSec: med((r) => r.totalOps),
      resizes: rs[0].resizes,
      retunes: rs[0].retunes,
      finalBuckets: rs[0].buckets,
    };
  });
}

function main(): void {
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:queue does)');
  const full = process.argv.includes('--full');
  const cases = argValue('cases')?.split(',').map((c): Case => [Number(c.split(':')[0]), c.split(':')[1] as DistributionName]) ?? (full ? FULL : QUICK);
  const repsArg = argValue('reps');
  const repsFor = (n: number) => (repsArg ? Number(repsArg) : n >= 1_000_000 && !full ? 3 : 5);
  const names = (argValue('only')?.split(',') ?? Object.keys(STRUCTURES)) as StructureName[];
  const started = Date.now();

  // Warm the JIT on a small case so the first measured structure is not penalised.
  for (const name of names) runHoldModel(STRUCTURES[name], 'bursty', 5_000, 1, 0);
  const rows = cases.flatMap(([n, dist]) => measure(n, dist, names, repsFor(n)));

  console.log(resultTable(rows));
  const out = {
    benchmark: 'timer-queue hold model',
    full,
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    date: new Date().toISOString(),
    durationSec: Math.round((Date.now() - started) / 100) / 10,
    workload: `fill N (timed up to the first peekTime); N/2 untimed hold rounds; max(N, ${MIN_HOLD_ROUNDS}) hold rounds (peekTime, dequeue one, enqueue one); burst of N/10 at one instant drained by popDue`,
    results: rows,
  };
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'queue.json'), JSON.stringify(out, null, 2) + '\n');
  writeFileSync(join(dir, 'queue.svg'), resultSvg(rows));
  console.log(`\nwrote bench/results/queue.json and queue.svg (${out.durationSec}s)`);
}

main();
