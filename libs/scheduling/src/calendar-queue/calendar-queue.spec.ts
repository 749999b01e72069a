/**
 * Calendar-queue specifics. Ordering against an oracle, for every
 * implementation, is in ../timer-queue.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import type { QueueHandle } from '../timer-queue';
import { CalendarQueue } from './calendar-queue';
import { PramResizePolicy } from './pram-resize-policy';
import { NaiveResizePolicy } from './resize-policy';

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

/**
 * The engine under bursts: every cycle claims 3000 runs due within a second
 * (a third of them at one instant), then fires them with popDue as time passes.
 */
function burstyEngine(q: CalendarQueue<number>, cycles: number): number[] {
  const r = rng(99);
  const fired: number[] = [];
  let now = 1_700_000_000_000;
  let id = 0;
  for (let c = 0; c < cycles; c++) {
    const instant = now + 500;
    for (let i = 0; i < 3000; i++) {
      const t = r() < 0.33 ? instant : now + Math.floor(r() * 1000);
      q.enqueue(id++, t, r() < 0.1 ? Math.floor(r() * 10) - 5 : 0);
    }
    for (let step = 0; step < 20; step++) {
      now += 60;
      fired.push(...q.popDue(now));
    }
  }
  return fired;
}

describe('CalendarQueue', () => {
  it('resizes at most half as often with PRAM as with Brown on a bursty workload, same output', () => {
    const pram = new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() });
    const naive = new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy() });
    const a = burstyEngine(pram, 15);
    const b = burstyEngine(naive, 15);
    expect(a).toEqual(b);
    expect(a).toHaveLength(45_000);
    expect(naive.stats.resizes).toBeGreaterThan(100);
    // Only when a drained queue has a tiny year; a broken day walk would search on every pop.
    expect(pram.stats.directSearches + naive.stats.directSearches).toBeLessThan(50);
    expect(pram.stats.resizes).toBeLessThanOrEqual(naive.stats.resizes / 2);
  });

  it('samples the bucket width from the gaps between distinct times at the head', () => {
    const q = new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy() });
    for (let i = 0; i < 1000; i++) {
      q.enqueue(i, 5000 + 10 * i);
      q.enqueue(-i, 5000 + 10 * i); // a second event at the same ms: ignored by the sampler
    }
    expect(q.stats.resizes).toBeGreaterThan(0);
    expect(q.stats.bucketWidth).toBe(10); // default factor 1: one distinct time a day
    expect(q.stats.buckets).toBeGreaterThanOrEqual(1000);

    const brown = new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy(), bucketWidthFactor: 3 });
    for (let i = 0; i < 1000; i++) brown.enqueue(i, 5000 + 10 * i);
    expect(brown.stats.bucketWidth).toBe(30);
  });

  it('re-samples a stale width from the dequeue stream, without a resize', () => {
    // Sized and sampled while sparse (10 ms apart), then the same count of events gets 10× denser.
    const q = new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() });
    for (let i = 0; i < 5000; i++) q.enqueue(i, 10 * i);
    const resizes = q.stats.resizes;
    expect(q.stats.bucketWidth).toBe(10);
    let now = 0;
    for (let i = 0; i < 20_000; i++) {
      const t = q.peekTime() as number;
      expect(t).toBeGreaterThanOrEqual(now);
      now = t;
      q.dequeue();
      q.enqueue(i, now + 1 + (i % 5000)); // ~1 ms apart from now on
    }
    expect(q.stats.resizes).toBe(resizes);
    expect(q.stats.directSearches).toBe(0); // Brown's walk found every minimum within its year
    expect(q.stats.retunes).toBeGreaterThan(0);
    expect(q.stats.bucketWidth).toBeLessThan(3);
  });

  it('finds an event a year or more ahead (direct search), and one behind the last served', () => {
    const never = { name: 'never', onArrival: () => 0, onDeparture: () => 0, reset: () => undefined };
    const q = new CalendarQueue<string>({ resizePolicy: never, initialBuckets: 4 });
    q.enqueue('soon', 100);
    q.enqueue('far', 1e12);
    expect(q.dequeue()).toBe('soon');
    expect(q.peekTime()).toBe(1e12);
    expect(q.stats.directSearches).toBeGreaterThan(0);
    q.enqueue('late', 50); // claimed late: due before what was already served
    expect(q.popDue(60)).toEqual(['late']);
    expect(q.popDue(1e12)).toEqual(['far']);
  });

  it('drops removed events by compaction once they outnumber the live ones, keeping order', () => {
    const q = new CalendarQueue<number>();
    const handles: QueueHandle[] = [];
    for (let i = 0; i < 2000; i++) handles.push(q.enqueue(i, 10_000 - (i % 500), i % 3));
    q.peekTime(); // places the staged arrivals: the removals below hit bucketed events
    for (let i = 0; i < 2000; i++) if (i % 10 !== 0) expect(q.remove(handles[i])).toBe(true);
    expect(q.size).toBe(200);
    expect(q.stats.compactions).toBeGreaterThan(0);
    const out = q.popDue(Infinity);
    const expected = Array.from({ length: 200 }, (_, k) => k * 10).sort(
      (a, b) => 10_000 - (a % 500) - (10_000 - (b % 500)) || (b % 3) - (a % 3) || a - b,
    );
    expect(out).toEqual(expected);
  });

  it('removeWhere takes out exactly the matching runs', () => {
    const q = new CalendarQueue<{ run: number; tenant: string }>();
    for (let i = 0; i < 500; i++) q.enqueue({ run: i, tenant: i % 5 === 0 ? 'acme' : 'other' }, 1000 + (i % 7));
    expect(q.removeWhere((x) => x.tenant === 'acme')).toBe(100);
    expect(q.size).toBe(400);
    const rest = q.popDue(2000);
    expect(rest).toHaveLength(400);
    expect(rest.every((x) => x.tenant === 'other')).toBe(true);
  });

  it('clear() empties the queue, stales the handles and restarts the calendar', () => {
    const q = new CalendarQueue<number>();
    const h = q.enqueue(1, 10);
    for (let i = 0; i < 100; i++) q.enqueue(i, i);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.has(h)).toBe(false);
    expect(q.remove(h)).toBe(false);
    expect(q.dequeue()).toBeUndefined();
    expect(q.stats.buckets).toBe(2);
    q.enqueue(7, 3);
    expect(q.dequeue()).toBe(7);
  });

  it('stages the arrivals after a resize is asked for: a fill rebuilds once, at the first read', () => {
    const r = rng(5);
    const q = new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() });
    const naive = new CalendarQueue<number>({ resizePolicy: new NaiveResizePolicy() });
    const keys: Array<[number, number, number]> = [];
    for (let i = 0; i < 50_000; i++) {
      const t = r() < 0.5 ? 60_000 : Math.floor(r() * 60_000);
      const p = i % 7 === 0 ? (i % 5) - 2 : 0;
      keys.push([t, p, i]);
      q.enqueue(i, t, p);
      naive.enqueue(i, t, p);
    }
    expect(q.size).toBe(50_000);
    expect(q.stats.resizes).toBe(1);
    expect(naive.stats.resizes).toBe(1); // Brown's 14 doublings, done as one rebuild
    keys.sort((a, b) => a[0] - b[0] || b[1] - a[1] || a[2] - b[2]);
    expect(q.popDue(Infinity)).toEqual(keys.map((k) => k[2]));
  });

  it('removes staged arrivals, and has() follows them, before the first read', () => {
    const q = new CalendarQueue<number>();
    const handles = Array.from({ length: 1000 }, (_, i) => q.enqueue(i, 1000 - i));
    for (let i = 0; i < 1000; i += 2) expect(q.remove(handles[i])).toBe(true);
    expect(q.has(handles[0])).toBe(false);
    expect(q.has(handles[1])).toBe(true);
    expect(q.size).toBe(500);
    const out = q.popDue(Infinity);
    expect(out).toEqual(Array.from({ length: 500 }, (_, k) => 999 - 2 * k));
    expect(q.has(handles[1])).toBe(false);
  });

  it('does not retune while serving thousands of events due at one instant', () => {
    const q = new CalendarQueue<number>({ resizePolicy: new PramResizePolicy() });
    // Seconds with 20,000 runs each, and a run every ms between them: one distinct time a day.
    let id = 0;
    for (let s = 1; s <= 5; s++) {
      for (let i = 0; i < 20_000; i++) q.enqueue(id++, s * 1000);
      for (let ms = 1; ms < 1000; ms++) q.enqueue(id++, s * 1000 + ms);
    }
    expect(q.popDue(Infinity)).toHaveLength(id);
    expect(q.stats.retunes).toBe(0);
  });

  it('keeps FIFO among equal keys across resizes and lazy merges', () => {
    const q = new CalendarQueue<number>({ resizePolicy: new PramResizePolicy({ window: 8, minHorizon: 1, recheckEvery: 1 }) });
    // Interleave two instants and three priorities; arrival order is the id.
    for (let i = 0; i < 6000; i++) q.enqueue(i, i % 2 === 0 ? 500 : 400, (i * 7) % 3);
    const out = q.popDue(1000);
    const expected = Array.from({ length: 6000 }, (_, i) => i).sort(
      (a, b) => (a % 2 === 0 ? 500 : 400) - (b % 2 === 0 ? 500 : 400) || ((b * 7) % 3) - ((a * 7) % 3) || a - b,
    );
    expect(out).toEqual(expected);
    expect(q.stats.resizes).toBeGreaterThan(0);
  });
});
