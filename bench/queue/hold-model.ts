/**
 * One hold-model run of a timer queue (the classic priority-queue benchmark:
 * Jones, "An empirical comparison of priority-queue and event-set
 * implementations", CACM 29(4), 1986), on the engine's workload shape:
 *
 *   fill   enqueue N events, then read the first due time: a queue that
 *          defers work on enqueue pays for it here, not in the untimed warm-up;
 *   (N/2 untimed hold rounds, to reach the steady state)
 *   hold   max(N, minRounds) rounds of peekTime / dequeue-one / enqueue-one,
 *          the new event due at (time just served) + a draw from the
 *          distribution: the pending set stays at N;
 *   burst  N/10 events enqueued at one future instant, then popDue(that
 *          instant): the "thousands due at the same millisecond" case.
 *
 * ops/s = queue operations / seconds, per phase and overall. The dequeue order
 * is folded into a rolling hash so structures can be checked against each other.
 */
import { BinaryHeap } from '../../libs/scheduling/src/binary-heap';
import { CalendarQueue } from '../../libs/scheduling/src/calendar-queue/calendar-queue';
import { PramResizePolicy } from '../../libs/scheduling/src/calendar-queue/pram-resize-policy';
import { NaiveResizePolicy } from '../../libs/scheduling/src/calendar-queue/resize-policy';
import type { TimerQueue } from '../../libs/scheduling/src/timer-queue';
import { Workload, type DistributionName } from './workloads';

export type StructureName = 'pram-cq' | 'naive-cq' | 'binary-heap';

export const STRUCTURES: Record<StructureName, () => TimerQueue<number>> = {
  'pram-cq': () => new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() }),
  'naive-cq': () => new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy() }),
  'binary-heap': () => new BinaryHeap<number>(),
};

export interface RunResult {
  fillOps: number;
  holdOps: number;
  burstOps: number;
  totalOps: number;
  /** Calendar queues only (null for the heap): rebuilds with a new bucket count. */
  resizes: number | null;
  /** Rebuilds that only re-sampled a stale bucket width. */
  retunes: number | null;
  buckets: number | null;
  checksum: number;
}

const BASE_TIME = 1_700_000_000_000;

export function runHoldModel(make: () => TimerQueue<number>, dist: DistributionName, n: number, seed: number, minRounds: number): RunResult {
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
  let now = q.peekTime() as number;
  const fillMs = performance.now() - t0;

  // The engine's loop: look at the next due time, take the run, plan the next.
  // Untimed first: the pending set drifts from its initial shape to the steady
  // state the hold model measures (and the JIT settles).
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
