/**
 * Property-style tests: every TimerQueue implementation is driven by seeded
 * random workloads in lock-step with a sorted-array oracle, and must return
 * exactly what the oracle returns after every operation.
 */
import { describe, expect, it } from 'vitest';
import { BinaryHeap } from './binary-heap';
import { CalendarQueue } from './calendar-queue/calendar-queue';
import { PramResizePolicy } from './calendar-queue/pram-resize-policy';
import { NaiveResizePolicy, type ResizePolicy } from './calendar-queue/resize-policy';
import type { QueueHandle, TimerQueue } from './timer-queue';

/** mulberry32: small, seedable, good enough for workloads. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Entry {
  id: number;
  time: number;
  prio: number;
  seq: number;
}

/** The specification: a sorted array on (time asc, priority desc, insertion asc). */
class Oracle {
  entries: Entry[] = [];
  private seq = 0;
  add(id: number, time: number, prio: number): void {
    const e = { id, time, prio, seq: this.seq++ };
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.entries[mid];
      const before = m.time < time || (m.time === time && (m.prio > prio || (m.prio === prio && m.seq < e.seq)));
      if (before) lo = mid + 1;
      else hi = mid;
    }
    this.entries.splice(lo, 0, e);
  }
  shift(): number | undefined {
    return this.entries.shift()?.id;
  }
  popDue(now: number, max: number): number[] {
    let k = 0;
    while (k < this.entries.length && k < max && this.entries[k].time <= now) k++;
    return this.entries.splice(0, k).map((e) => e.id);
  }
  remove(id: number): boolean {
    const i = this.entries.findIndex((e) => e.id === id);
    if (i < 0) return false;
    this.entries.splice(i, 1);
    return true;
  }
  removeWhere(pred: (id: number) => boolean): number {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => !pred(e.id));
    return before - this.entries.length;
  }
}

/** Never resizes: keeps a tiny calendar so buckets hold many "years" and the direct search runs. */
class FrozenPolicy implements ResizePolicy {
  readonly name = 'frozen';
  onArrival(): number {
    return 0;
  }
  onDeparture(): number {
    return 0;
  }
  reset(): void {}
}

const implementations: Array<[string, () => TimerQueue<number>]> = [
  ['BinaryHeap', () => new BinaryHeap<number>({ initialCapacity: 4 })],
  ['CalendarQueue(naive)', () => new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy(), initialCapacity: 4 })],
  ['CalendarQueue(pram)', () => new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() })],
  [
    'CalendarQueue(pram, twitchy)',
    () => new CalendarQueue<number>({ resizePolicy: new PramResizePolicy({ window: 8, minHorizon: 1, recheckEvery: 1, hardGrowAt: 3 }) }),
  ],
  ['CalendarQueue(frozen, 3 buckets, wide days)', () => new CalendarQueue<number>({ resizePolicy: new FrozenPolicy(), initialBuckets: 3, initialBucketWidth: 7 })],
];

type Workload = 'uniform' | 'bursty' | 'outliers' | 'mixed';

/** Due time of a new event, relative to the simulated `now`. */
function timeFor(w: Workload, r: () => number, now: number): number {
  const u = r();
  switch (w) {
    case 'uniform':
      return now + Math.floor(r() * 1000);
    case 'bursty':
      // Most events land on a few burst instants (many at the same ms), some in between.
      return u < 0.75 ? Math.ceil(now / 100) * 100 + 100 * Math.floor(r() * 4) : now + Math.floor(r() * 400);
    case 'outliers':
      return u < 0.05 ? now + 1e6 + Math.floor(r() * 1e9) : now + Math.floor(r() * 200);
    case 'mixed':
      // Late claims (due before now, even before what was already served), fractions, negatives, bursts.
      if (u < 0.1) return now - Math.floor(r() * 50);
      if (u < 0.2) return now + r() * 10;
      if (u < 0.25) return -1000 - Math.floor(r() * 1000);
      if (u < 0.6) return now + 17;
      return now + Math.floor(r() * 3000);
  }
}

function drive(make: () => TimerQueue<number>, w: Workload, seed: number, steps: number): { ops: number } {
  const r = rng(seed);
  const q = make();
  const oracle = new Oracle();
  const handles = new Map<number, QueueHandle>();
  const gone: QueueHandle[] = [];
  let now = 1_700_000_000_000;
  let nextId = 0;
  let ops = 0;
  const prios = [0, 0, 0, 0, 1, -1, 5, -5, 100, 2.5];
  for (let step = 0; step < steps; step++) {
    const op = r();
    ops++;
    if (op < 0.5) {
      const burst = r() < 0.05 ? 1 + Math.floor(r() * 300) : 1;
      for (let b = 0; b < burst; b++) {
        const id = nextId++;
        const t = timeFor(w, r, now);
        const p = prios[Math.floor(r() * prios.length)];
        handles.set(id, q.enqueue(id, t, p));
        oracle.add(id, t, p);
      }
    } else if (op < 0.6) {
      const got = q.dequeue();
      expect(got).toBe(oracle.shift());
      if (got !== undefined) gone.push(handles.get(got) as QueueHandle);
    } else if (op < 0.75) {
      now += Math.floor(r() * (w === 'outliers' ? 300 : 150));
      const max = r() < 0.3 ? 1 + Math.floor(r() * 20) : Infinity;
      const got = q.popDue(now, max);
      expect(got).toEqual(oracle.popDue(now, max));
      for (const id of got) gone.push(handles.get(id) as QueueHandle);
    } else if (op < 0.85) {
      // Remove a live event, or try a stale handle (must be refused).
      if (r() < 0.7 && oracle.entries.length > 0) {
        const id = oracle.entries[Math.floor(r() * oracle.entries.length)].id;
        const h = handles.get(id) as QueueHandle;
        expect(q.has(h)).toBe(true);
        expect(q.remove(h)).toBe(oracle.remove(id));
        expect(q.remove(h)).toBe(false);
        expect(q.has(h)).toBe(false);
      } else if (gone.length > 0) {
        const h = gone[Math.floor(r() * gone.length)];
        expect(q.remove(h)).toBe(false);
      }
    } else if (op < 0.86) {
      const m = 2 + Math.floor(r() * 5);
      expect(q.removeWhere((id) => id % m === 0)).toBe(oracle.removeWhere((id) => id % m === 0));
    } else if (op < 0.999) {
      expect(q.peekTime()).toBe(oracle.entries[0]?.time);
      expect(q.peek()).toBe(oracle.entries[0]?.id);
    } else {
      q.clear();
      oracle.entries = [];
    }
    expect(q.size).toBe(oracle.entries.length);
  }
  // Drain: the full remaining order must match.
  const rest: number[] = [];
  for (let id = q.dequeue(); id !== undefined; id = q.dequeue()) rest.push(id);
  expect(rest).toEqual(oracle.entries.map((e) => e.id));
  expect(q.size).toBe(0);
  expect(q.peekTime()).toBeUndefined();
  return { ops };
}

describe.each(implementations)('%s against a sorted-array oracle', (_name, make) => {
  it.each(['uniform', 'bursty', 'outliers', 'mixed'] as Workload[])('%s workload, 6 seeds', (w) => {
    for (let seed = 1; seed <= 6; seed++) drive(make, w, seed * 7919 + w.length, 1500);
  });

  it('orders ties by priority (higher first), then FIFO, and never across times', () => {
    const q = make();
    q.enqueue('a'.charCodeAt(0), 10, 0);
    q.enqueue('b'.charCodeAt(0), 10, 5);
    q.enqueue('c'.charCodeAt(0), 10, 0);
    q.enqueue('d'.charCodeAt(0), 9, -100); // earlier real time wins over any priority
    q.enqueue('e'.charCodeAt(0), 11, 100); // later real time loses to any priority
    q.enqueue('f'.charCodeAt(0), 10, 5);
    const order = String.fromCharCode(...q.popDue(100));
    expect(order).toBe('dbface');
  });

  it('popDue never fires early: only events with time <= now, in order, at most max', () => {
    const q = make();
    for (let i = 0; i < 50; i++) q.enqueue(i, 1000 + (i % 10));
    expect(q.popDue(999)).toEqual([]);
    expect(q.popDue(1000, 3)).toEqual([0, 10, 20]);
    expect(q.popDue(1000)).toEqual([30, 40]);
    expect(q.popDue(1001, 0)).toEqual([]);
    expect(q.peekTime()).toBe(1001);
    expect(q.size).toBe(45);
  });

  it('a burst of 5000 at one instant with mixed priorities drains in order while more arrive', () => {
    const q = make();
    const oracle = new Oracle();
    const r = rng(42);
    let id = 0;
    const add = (t: number) => {
      const p = Math.floor(r() * 5) - 2;
      q.enqueue(id, t, p);
      oracle.add(id++, t, p);
    };
    for (let i = 0; i < 5000; i++) add(5000);
    for (let i = 0; i < 200; i++) add(4990 + Math.floor(r() * 30));
    for (let round = 0; round < 100; round++) {
      expect(q.popDue(5000, 37)).toEqual(oracle.popDue(5000, 37));
      for (let i = 0; i < 20; i++) add(r() < 0.5 ? 5000 : 5001 + Math.floor(r() * 3));
    }
    expect(q.popDue(1e9)).toEqual(oracle.popDue(1e9, Infinity));
  });

  it('a long hold whose density changes 50-fold (resizes, width re-samples) stays in order', () => {
    const q = make();
    const oracle = new Oracle();
    const r = rng(7);
    let id = 0;
    let now = 0;
    const add = (spread: number) => {
      const t = now + Math.floor(r() * spread);
      const p = r() < 0.2 ? Math.floor(r() * 3) : 0;
      q.enqueue(id, t, p);
      oracle.add(id++, t, p);
    };
    for (let i = 0; i < 2000; i++) add(100_000);
    for (let round = 0; round < 30_000; round++) {
      const got = q.dequeue() as number;
      expect(got).toBe(oracle.shift());
      now = (oracle.entries[0]?.time ?? now) - 1;
      add(round < 10_000 ? 100_000 : 2_000); // then sparse again
      if (round > 20_000) {
        add(100_000);
        expect(q.dequeue()).toBe(oracle.shift());
      }
    }
    expect(q.popDue(Infinity)).toEqual(oracle.popDue(Infinity, Infinity));
  });

  it('refuses non-finite times and priorities, and stale handles', () => {
    const q = make();
    expect(() => q.enqueue(1, NaN)).toThrow(RangeError);
    expect(() => q.enqueue(1, Infinity)).toThrow(RangeError);
    expect(() => q.enqueue(1, 9e15)).toThrow(RangeError); // beyond the Date range
    expect(q.enqueue(1, -8.64e15)).toBeDefined(); // the Date range's ends are fine
    expect(q.enqueue(2, 8.64e15, 3)).toBeDefined();
    expect(q.popDue(8.64e15)).toEqual([1, 2]);
    expect(() => q.enqueue(1, 5, NaN)).toThrow(RangeError);
    const h = q.enqueue(1, 5);
    expect(q.dequeue()).toBe(1);
    const h2 = q.enqueue(2, 6); // likely reuses the slot: the old handle must not remove it
    expect(q.remove(h)).toBe(false);
    expect(q.remove(-1 as QueueHandle)).toBe(false);
    expect(q.remove(1.5 as QueueHandle)).toBe(false);
    expect(q.size).toBe(1);
    expect(q.remove(h2)).toBe(true);
    expect(q.size).toBe(0);
  });
});
