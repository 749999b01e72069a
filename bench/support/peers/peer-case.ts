import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sleep } from '../../../test/cluster/support/cluster';
import { REGISTER_TS, ROOT, startReadyProcess, type OwnedProcess } from '../../../test/cluster/support/processes';
import { CpuMeter } from '../cpu-meter';
import { busiest, startFigures, takeover, type HandlerStart, type StartFigures } from './start-figures';

/**
 * One burst on a peer (BullMQ, graphile-worker): `workers` worker processes
 * (bench/support/peers/worker-main.ts), WARMUP jobs run through first, then `n` jobs all due at
 * one instant T; lateness = handler start − T from the workers' records. With `kill`, the worker
 * that started the most of the burst is SIGKILLed at T + 0.5 s. Lost: jobs the store does not
 * count as completed when the wait ends (nothing completed for `stallMs`). CPU: the workers and
 * the store's process tree, from the end of the seeding to the wait's end.
 */

export const PEER_WARMUP = 1000;
export const KILL_AFTER_T_MS = 500;
const WORKER_MAIN = resolve(__dirname, 'worker-main.ts');

/** A peer's queue for one case (a fresh BullMQ queue, a fresh graphile-worker database). */
export interface PeerQueue {
  /** What the workers need to reach it (PEER_URL, PEER_QUEUE). */
  workerEnv: Record<string, string>;
  /** Adds one job per key, due at `at` (epoch ms; now: at once). */
  add(keys: readonly string[], at: number): Promise<void>;
  /** Jobs completed so far, as the store counts them. */
  completed(): Promise<number>;
  /** Keys of the jobs workers have taken and not completed (BullMQ: active; graphile-worker: locked). */
  inFlight(): Promise<string[]>;
  close(): Promise<void>;
}

export interface PeerSystem {
  key: 'bullmq' | 'graphile-worker';
  /** Versions and durability, for the table's header and docs. */
  settings: Record<string, string | number>;
  storePid: number;
  open(caseName: string): Promise<PeerQueue>;
}

export interface CaseSpec {
  n: number;
  workers: number;
  kill: boolean;
  /** When the kill comes, ms after T (before T when negative). Default KILL_AFTER_T_MS. */
  killAtMs?: number;
}

/** One row of the peers table (every system, Baton included). */
export interface PeerCaseResult extends StartFigures {
  system: string;
  n: number;
  workers: number;
  kill: boolean;
  seedMs: number;
  /** Never completed by the end of the wait. */
  lost: number;
  /**
   * The worker killed, how many jobs it held (peers: taken from the store and not completed at the
   * kill, less those another worker had started; Baton: runs its engine held CLAIMED or
   * DISPATCHED), and when the last of them was taken over (peers: started by another worker;
   * Baton: released or re-owned), ms after the kill; null when one never was.
   */
  killed?: { killedAfterTMs: number; victim: string; held: number; takeoverMs: number | null };
  cpuSec: Record<string, number>;
  /** Baton: the part of `cpuSec` used before T (planning and claiming the burst, the lead's idle loops). */
  cpuBeforeTSec?: Record<string, number>;
  /** All the measured processes' CPU over the burst, per job, ms. */
  cpuMsPerRun: number;
}

export function caseName(spec: CaseSpec): string {
  const at = spec.killAtMs ?? KILL_AFTER_T_MS;
  return `${spec.n}x${spec.workers}${spec.kill ? `-kill${at === KILL_AFTER_T_MS ? '' : at}` : ''}`;
}

export async function runPeerCase(system: PeerSystem, spec: CaseSpec, concurrency: number, log: (s: string) => void): Promise<PeerCaseResult> {
  const { n, kill } = spec;
  const queue = await system.open(caseName(spec).replace('-', '_'));
  const dir = mkdtempSync(join(tmpdir(), `baton-peers-${system.key}-`));
  const workers: OwnedProcess[] = [];
  const recordFiles: string[] = [];
  try {
    for (let i = 1; i <= spec.workers; i++) {
      const w = await startPeerWorker(system.key, `${system.key}-worker-${i}`, queue.workerEnv, concurrency, dir);
      recordFiles.push(w.recordFile);
      workers.push(w.process);
    }
    const starts = () => recordFiles.flatMap((f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as HandlerStart) : []));

    await queue.add(keysOf('w', PEER_WARMUP), Date.now());
    if (!(await waitCompleted(queue, PEER_WARMUP, { stallMs: 30_000 })).complete) throw new Error(`${system.key}: the ${PEER_WARMUP} warm-up jobs did not complete`);

    const keys = keysOf('b', n);
    const seedStart = Date.now();
    const due = Math.ceil((seedStart + 3_000 + n * 0.3) / 1000) * 1000;
    await queue.add(keys, due);
    const seedMs = Date.now() - seedStart;
    if (Date.now() > due - 1_000) log(`  warning: seeding took ${seedMs} ms; T is ${due - Date.now()} ms away`);
    const cpu = new CpuMeter({ store: system.storePid, ...Object.fromEntries(workers.map((w) => [w.name, w.pid])) });

    let killed: { pid: number; name: string; at: number; held: string[] } | null = null;
    if (kill) {
      await sleep(Math.max(0, due + (spec.killAtMs ?? KILL_AFTER_T_MS) - Date.now()));
      const pid = busiest(starts(), new Set(keys)) ?? workers[0].pid;
      const victim = workers.find((w) => w.pid === pid)!;
      cpu.sample();
      process.kill(victim.pid, 'SIGKILL');
      const at = Date.now();
      // What the victim held: taken and not completed, less what the survivors had started already.
      const startedElsewhere = new Set(starts().filter((s) => s.pid !== pid).map((s) => s.k));
      const held = (await queue.inFlight()).filter((k) => !startedElsewhere.has(k));
      killed = { pid, name: victim.name, at, held };
      log(`  killed ${victim.name} (pid ${pid}) at T+${at - due} ms holding ${held.length} jobs`);
    }
    // A killed BullMQ worker's jobs come back with the stalled check (every 30 s): wait past two.
    const waited = await waitCompleted(queue, PEER_WARMUP + n, { stallMs: kill ? 75_000 : 30_000, onPoll: () => cpu.sample() });
    const cpuSec = cpu.used();
    await sleep(300); // the last record lines
    const all = starts();
    const figures = startFigures(all, keys, due);
    const total = Object.values(cpuSec).reduce((a, b) => a + b, 0);
    return {
      system: system.key,
      ...spec,
      seedMs,
      ...figures,
      lost: PEER_WARMUP + n - waited.completed,
      killed: killed ? { killedAfterTMs: killed.at - due, victim: killed.name, ...takeover(all, killed.pid, killed.at, killed.held) } : undefined,
      cpuSec,
      cpuMsPerRun: +((total * 1000) / n).toFixed(3),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 5_000)));
    await queue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One worker process of a peer (worker-main.ts), its log and record file in `dir`; waits until it takes jobs. */
export async function startPeerWorker(
  system: PeerSystem['key'],
  name: string,
  workerEnv: Record<string, string>,
  concurrency: number,
  dir: string,
): Promise<{ process: OwnedProcess; recordFile: string }> {
  const recordFile = join(dir, `${name}.records.jsonl`);
  const { process: worker } = await startReadyProcess({
    name,
    logFile: join(dir, `${name}.log`),
    env: { ...workerEnv, PEER_SYSTEM: system, PEER_CONCURRENCY: String(concurrency), PEER_RECORD_FILE: recordFile },
    args: ['-r', REGISTER_TS, WORKER_MAIN],
    ready: /^PEER WORKER READY\r?$/m,
    what: 'peer worker',
  });
  return { process: worker, recordFile };
}

/** An installed package's version (node_modules/<name>/package.json), for the table and docs. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

function keysOf(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
}

/** Polls the store's completed count until `n`, or nothing completed for `stallMs`. */
async function waitCompleted(queue: PeerQueue, n: number, options: { stallMs: number; onPoll?: () => void }): Promise<{ completed: number; complete: boolean }> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const completed = await queue.completed();
    options.onPoll?.();
    if (completed >= n) return { completed, complete: true };
    if (completed !== last) {
      last = completed;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > options.stallMs) return { completed, complete: false };
    await sleep(250);
  }
}
