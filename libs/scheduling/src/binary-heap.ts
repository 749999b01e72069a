import { checkFinite, checkTime, encodeHandle, GEN_MASK, grown, handleGeneration, handleSlot, MAX_SLOTS } from './slot-handles';
import type { QueueHandle, TimerQueue } from './timer-queue';

export interface BinaryHeapOptions {
  /** Slots allocated up front; the heap doubles them when full. Default 64. */
  initialCapacity?: number;
}

/**
 * A plain binary min-heap with the TimerQueue contract: the baseline the
 * calendar queue is measured against, and a fine choice for small queues.
 *
 * Layout: the heap order lives in two parallel typed arrays (time + slot) so a
 * sift compares times without chasing a pointer; priority and insertion order
 * are read through the slot only on a time tie. `pos[slot]` tracks where each
 * event sits, so `remove(handle)` is a true O(log n) removal (no tombstones).
 */
export class BinaryHeap<T> implements TimerQueue<T> {
  private heapTime: Float64Array;
  private heapSlot: Int32Array;
  private n = 0;

  private prio: Float64Array;
  private seq: Float64Array;
  private gen: Int32Array;
  /** Heap index of a slot, -1 when the slot is free. */
  private pos: Int32Array;
  private items: (T | undefined)[] = [];
  private freeSlots: Int32Array;
  private freeTop = 0;
  private highWater = 0;
  private nextSeq = 0;

  constructor(options: BinaryHeapOptions = {}) {
    const cap = Math.max(4, Math.min(MAX_SLOTS, options.initialCapacity ?? 64));
    this.heapTime = new Float64Array(cap);
    this.heapSlot = new Int32Array(cap);
    this.prio = new Float64Array(cap);
    this.seq = new Float64Array(cap);
    this.gen = new Int32Array(cap);
    this.pos = new Int32Array(cap).fill(-1);
    this.freeSlots = new Int32Array(cap);
  }

  get size(): number {
    return this.n;
  }

  enqueue(item: T, time: number, priority = 0): QueueHandle {
    checkTime(time);
    checkFinite('priority', priority);
    const slot = this.allocSlot();
    this.prio[slot] = priority;
    this.seq[slot] = this.nextSeq++;
    this.items[slot] = item;
    this.siftUp(this.n++, time, slot);
    return encodeHandle(slot, this.gen[slot]);
  }

  peekTime(): number | undefined {
    return this.n > 0 ? this.heapTime[0] : undefined;
  }

  peek(): T | undefined {
    return this.n > 0 ? this.items[this.heapSlot[0]] : undefined;
  }

  dequeue(): T | undefined {
    if (this.n === 0) return undefined;
    const slot = this.heapSlot[0];
    const item = this.items[slot];
    this.removeAt(0);
    this.freeSlot(slot);
    return item;
  }

  popDue(now: number, max = Infinity): T[] {
    const out: T[] = [];
    while (this.n > 0 && out.length < max && this.heapTime[0] <= now) {
      out.push(this.dequeue() as T);
    }
    return out;
  }

  remove(handle: QueueHandle): boolean {
    const slot = this.liveSlot(handle);
    if (slot < 0) return false;
    this.removeAt(this.pos[slot]);
    this.freeSlot(slot);
    return true;
  }

  has(handle: QueueHandle): boolean {
    return this.liveSlot(handle) >= 0;
  }

  removeWhere(pred: (item: T, time: number) => boolean): number {
    // Collect first: removing while walking the heap array would skip entries.
    const doomed: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const slot = this.heapSlot[i];
      if (pred(this.items[slot] as T, this.heapTime[i])) doomed.push(slot);
    }
    for (const slot of doomed) {
      this.removeAt(this.pos[slot]);
      this.freeSlot(slot);
    }
    return doomed.length;
  }

  clear(): void {
    for (let i = 0; i < this.n; i++) this.freeSlot(this.heapSlot[i]);
    this.n = 0;
  }

  private liveSlot(handle: number): number {
    const slot = handleSlot(handle);
    if (slot < 0 || slot >= this.highWater || this.pos[slot] < 0) return -1;
    return this.gen[slot] === handleGeneration(handle) ? slot : -1;
  }

  /** Strict "a fires before b" on (time asc, priority desc, seq asc). */
  private before(ta: number, sa: number, tb: number, sb: number): boolean {
    if (ta !== tb) return ta < tb;
    const pa = this.prio[sa];
    const pb = this.prio[sb];
    if (pa !== pb) return pa > pb;
    return this.seq[sa] < this.seq[sb];
  }

  private removeAt(i: number): void {
    const lastIdx = --this.n;
    if (i === lastIdx) return;
    const t = this.heapTime[lastIdx];
    const s = this.heapSlot[lastIdx];
    // The moved last element may belong above or below the hole.
    if (i > 0 && this.before(t, s, this.heapTime[(i - 1) >> 1], this.heapSlot[(i - 1) >> 1])) this.siftUp(i, t, s);
    else this.siftDown(i, t, s);
  }

  /** Moves the hole at `i` up until (t, s) fits, then fills it. */
  private siftUp(i: number, t: number, s: number): void {
    const ht = this.heapTime;
    const hs = this.heapSlot;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(t, s, ht[p], hs[p])) break;
      ht[i] = ht[p];
      hs[i] = hs[p];
      this.pos[hs[i]] = i;
      i = p;
    }
    ht[i] = t;
    hs[i] = s;
    this.pos[s] = i;
  }

  private siftDown(i: number, t: number, s: number): void {
    const ht = this.heapTime;
    const hs = this.heapSlot;
    const n = this.n;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.before(ht[c + 1], hs[c + 1], ht[c], hs[c])) c++;
      if (!this.before(ht[c], hs[c], t, s)) break;
      ht[i] = ht[c];
      hs[i] = hs[c];
      this.pos[hs[i]] = i;
      i = c;
    }
    ht[i] = t;
    hs[i] = s;
    this.pos[s] = i;
  }

  private allocSlot(): number {
    if (this.freeTop > 0) return this.freeSlots[--this.freeTop];
    if (this.highWater === this.prio.length) this.grow();
    return this.highWater++;
  }

  private freeSlot(slot: number): void {
    this.pos[slot] = -1;
    this.items[slot] = undefined;
    this.gen[slot] = (this.gen[slot] + 1) & GEN_MASK;
    this.freeSlots[this.freeTop++] = slot;
  }

  private grow(): void {
    const cap = this.prio.length;
    if (cap >= MAX_SLOTS) throw new RangeError(`queue is full (${MAX_SLOTS} events)`);
    const next = Math.min(MAX_SLOTS, cap * 2);
    this.heapTime = grown(this.heapTime, next);
    this.heapSlot = grown(this.heapSlot, next);
    this.prio = grown(this.prio, next);
    this.seq = grown(this.seq, next);
    this.gen = grown(this.gen, next);
    const pos = grown(this.pos, next);
    pos.fill(-1, cap);
    this.pos = pos;
    this.freeSlots = grown(this.freeSlots, next);
  }
}
