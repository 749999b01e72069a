/**
 * CalendarQueue — Brown's O(1) priority queue of timed events (R. Brown,
 * "Calendar queues", CACM 31(10), 1988) with the resize decision of PRAM
 * (Zhang, Li, Zhang, Deng, "PRAM: efficient calendar queue algorithm based on
 * Markov model", Application Research of Computers 25(9), 2008).
 *
 * The engine claims due runs ahead of time and keeps them here until their
 * due millisecond; `popDue(now)` hands over everything due, in order.
 *
 * Taken from the paper:
 * - §1: the structure — NB buckets ("days") of width δ, a "year" of NB·δ; an
 *   event lives in bucket ⌊t/δ⌋ mod NB; dequeue walks days from the last one
 *   served and takes the first event belonging to the current year, falling
 *   back to a direct search when a whole year is empty.
 * - §1: the naive rule (double when NE > 2NB, halve when NE < NB/2) as
 *   `NaiveResizePolicy`, and the observation that each resize is an O(n)
 *   rebuild, so a size swinging across a threshold makes the queue thrash.
 * - §2: deciding resizes from an M/M/1/N forecast of the size instead
 *   (`PramResizePolicy`): triggers NE > 3NB / NE < NB/3 from its pseudo-code,
 *   then a rebuild only if the forecast agrees, sized for the forecast.
 * - §3.1: the virtual timestamp, reduced to a tie-break inside one
 *   millisecond (see timer-queue.ts for why it must not shift real time).
 *
 * Simplified or changed:
 * - formulas (3), (5), (14) did not survive the OCR: the forecast uses the
 *   textbook M/M/1/N mean plus a drift term (mm1n.ts), and we do not apply the
 *   §2.2 finite-bucket correction η (its Table-free M/N bounds 1.92–3.02 are
 *   met anyway by sizing NB near the forecast size).
 * - rates are measured per queue operation, not per second (no clock here).
 * - the paper, like Brown, recomputes the width only on resize (its §5 names
 *   this as open); so do we.
 * - bucket width: Brown's sampling over *distinct* times (bucket-width.ts).
 * - buckets are not sorted linked lists: each is an array of slot ids whose
 *   prefix [head, sorted) is in key order and whose tail [sorted, length) is
 *   appended unsorted and merged lazily, only once it holds the bucket's
 *   minimum. An in-order append (the common case: equal times arrive in FIFO
 *   order) is O(1) — a sorted linked list would walk the whole burst sharing
 *   the millisecond on every insert.
 * - removal is lazy: a removed event stays in its bucket, marked, and is
 *   skipped when reached; a rebuild drops them once they outnumber the live.
 * - events are struct-of-arrays (typed arrays indexed by slot) and handles
 *   are numbers: no allocation per event on the hot path.
 */
import { checkFinite, encodeHandle, GEN_MASK, grown, handleGeneration, handleSlot, MAX_SLOTS } from '../slot-handles';
import type { QueueHandle, TimerQueue } from '../timer-queue';
import { sampleBucketWidth } from './bucket-width';
import { PramResizePolicy } from './pram-resize-policy';
import type { ResizePolicy } from './resize-policy';

export interface CalendarQueueOptions {
  /**
   * Decides when to rebuild and with how many buckets. Stateful: give each
   * queue its own instance. Default: `new PramResizePolicy()`.
   */
  resizePolicy?: ResizePolicy;
  /** Buckets before the first resize. Default 2 (Brown). */
  initialBuckets?: number;
  /** Bucket width in ms before the first resize samples one. Default 1. */
  initialBucketWidth?: number;
  /**
   * Narrowest width the sampler may choose, in ms. Default 1: times are whole
   * milliseconds, so narrower days would only add empty buckets to scan.
   */
  minBucketWidth?: number;
  /** Distinct head times sampled for the width (Brown used 25 events). Default 25. */
  widthSampleSize?: number;
  /** Event slots allocated up front; doubled when full. Default 64. */
  initialCapacity?: number;
}

export interface CalendarQueueStats {
  /** Rebuilds with a new bucket count, decided by the resize policy. */
  resizes: number;
  /** Rebuilds that only dropped removed events (same bucket count). */
  compactions: number;
  /** Current number of buckets (NB). */
  buckets: number;
  /** Current bucket width δ in ms. */
  bucketWidth: number;
  /** Dequeues that found a whole year empty and searched every bucket. */
  directSearches: number;
  /** Name of the resize policy. */
  policy: string;
}

const FREE = 0;
const LIVE = 1;
const DEAD = 2;
/** Buckets this short take an out-of-order event by shifting; longer ones defer it to the lazy merge. */
const SHIFT_INSERT_MAX = 8;
/** A served prefix longer than this (and than half the bucket) is cut, so a long-lived bucket stays bounded. */
const TRIM_HEAD = 1024;
/** Removed-but-present events tolerated before they may trigger a compaction. */
const COMPACT_MIN_DEAD = 64;

export class CalendarQueue<T> implements TimerQueue<T> {
  // ---- events, struct-of-arrays by slot ----
  private time: Float64Array;
  private prio: Float64Array;
  private seq: Float64Array;
  private gen: Int32Array;
  private state: Uint8Array;
  private items: (T | undefined)[] = [];
  private freeSlots: Int32Array;
  private freeTop = 0;
  private highWater = 0;
  private nextSeq = 0;
  private live = 0;
  /** Entries physically in buckets: live + removed-not-yet-dropped. */
  private physical = 0;
  private dead = 0;

  // ---- buckets ----
  private nb: number;
  private width: number;
  private invWidth: number;
  private bArr: (number[] | undefined)[] = [];
  private bHead: Int32Array = new Int32Array(0);
  private bSorted: Int32Array = new Int32Array(0);
  /** Slot of the smallest entry in the unsorted tail, -1 when there is none. */
  private bPend: Int32Array = new Int32Array(0);
  private spare: number[][] = [];
  /** Invariant: no entry's day is before curDay. curBucket = curDay mod nb. */
  private curDay = 0;
  private curBucket = 0;

  private readonly policy: ResizePolicy;
  private readonly initialBuckets: number;
  private readonly initialWidth: number;
  private readonly minWidth: number;
  private readonly sampleSize: number;
  private resizes = 0;
  private compactions = 0;
  private directSearches = 0;

  private readonly cmp = (a: number, b: number): number => (this.less(a, b) ? -1 : 1);

  constructor(options: CalendarQueueOptions = {}) {
    this.policy = options.resizePolicy ?? new PramResizePolicy();
    this.initialBuckets = Math.max(1, Math.floor(options.initialBuckets ?? 2));
    this.minWidth = options.minBucketWidth ?? 1;
    this.initialWidth = Math.max(this.minWidth, options.initialBucketWidth ?? 1);
    this.sampleSize = Math.max(1, options.widthSampleSize ?? 25);
    if (!(this.minWidth > 0)) throw new RangeError('minBucketWidth must be > 0');
    const cap = Math.max(4, Math.min(MAX_SLOTS, options.initialCapacity ?? 64));
    this.time = new Float64Array(cap);
    this.prio = new Float64Array(cap);
    this.seq = new Float64Array(cap);
    this.gen = new Int32Array(cap);
    this.state = new Uint8Array(cap);
    this.freeSlots = new Int32Array(cap);
    this.nb = this.initialBuckets;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.allocBuckets(this.nb);
  }

  get size(): number {
    return this.live;
  }

  get stats(): CalendarQueueStats {
    return {
      resizes: this.resizes,
      compactions: this.compactions,
      buckets: this.nb,
      bucketWidth: this.width,
      directSearches: this.directSearches,
      policy: this.policy.name,
    };
  }

  enqueue(item: T, time: number, priority = 0): QueueHandle {
    checkFinite('time', time);
    checkFinite('priority', priority);
    const slot = this.allocSlot();
    this.time[slot] = time;
    this.prio[slot] = priority;
    this.seq[slot] = this.nextSeq++;
    this.state[slot] = LIVE;
    this.items[slot] = item;
    const handle = encodeHandle(slot, this.gen[slot]);
    const day = Math.floor(time * this.invWidth);
    // An empty queue may jump forward; an earlier event pulls the scan back.
    if (this.physical === 0 || day < this.curDay) {
      this.curDay = day;
      this.curBucket = this.bucketOfDay(day);
    }
    this.physical++;
    this.live++;
    this.place(slot, this.bucketOfDay(day));
    const nb = this.policy.onArrival(this.live, this.nb);
    if (nb > 0 && nb !== this.nb) this.rebuild(nb, true);
    return handle;
  }

  peekTime(): number | undefined {
    const slot = this.firstLive();
    return slot < 0 ? undefined : this.time[slot];
  }

  peek(): T | undefined {
    const slot = this.firstLive();
    return slot < 0 ? undefined : this.items[slot];
  }

  dequeue(): T | undefined {
    const slot = this.firstLive();
    if (slot < 0) return undefined;
    return this.takeFirst(slot);
  }

  popDue(now: number, max = Infinity): T[] {
    const out: T[] = [];
    while (out.length < max) {
      const slot = this.firstLive();
      if (slot < 0 || this.time[slot] > now) break;
      out.push(this.takeFirst(slot));
    }
    return out;
  }

  remove(handle: QueueHandle): boolean {
    const slot = this.liveSlot(handle);
    if (slot < 0) return false;
    this.kill(slot);
    this.afterDeparture();
    return true;
  }

  has(handle: QueueHandle): boolean {
    return this.liveSlot(handle) >= 0;
  }

  removeWhere(pred: (item: T, time: number) => boolean): number {
    let removed = 0;
    // Walks slots, not buckets, so a rebuild triggered midway does not disturb it.
    for (let s = 0; s < this.highWater; s++) {
      if (this.state[s] === LIVE && pred(this.items[s] as T, this.time[s])) {
        this.kill(s);
        this.afterDeparture();
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    for (let s = 0; s < this.highWater; s++) if (this.state[s] !== FREE) this.freeSlot(s);
    this.live = this.physical = this.dead = 0;
    this.nb = this.initialBuckets;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.allocBuckets(this.nb);
    this.curDay = this.curBucket = 0;
    this.policy.reset();
  }

  // ---- ordering ----

  /** Strict "a fires before b" on (time asc, priority desc, seq asc). Slots are never equal keys: seq is unique. */
  private less(a: number, b: number): boolean {
    const ta = this.time[a];
    const tb = this.time[b];
    if (ta !== tb) return ta < tb;
    const pa = this.prio[a];
    const pb = this.prio[b];
    if (pa !== pb) return pa > pb;
    return this.seq[a] < this.seq[b];
  }

  private bucketOfDay(day: number): number {
    const b = day % this.nb;
    return b < 0 ? b + this.nb : b;
  }

  // ---- buckets ----

  private allocBuckets(nb: number): void {
    this.bArr = new Array<number[] | undefined>(nb);
    this.bHead = new Int32Array(nb);
    this.bSorted = new Int32Array(nb);
    this.bPend = new Int32Array(nb).fill(-1);
  }

  /** Puts a slot into bucket b, keeping [head, sorted) in key order. */
  private place(slot: number, b: number): void {
    let arr = this.bArr[b];
    if (arr === undefined) {
      arr = this.spare.pop() ?? [];
      arr.push(slot);
      this.bArr[b] = arr;
      this.bHead[b] = 0;
      this.bSorted[b] = 1;
      this.bPend[b] = -1;
      return;
    }
    const len = arr.length;
    if (this.bSorted[b] === len) {
      const head = this.bHead[b];
      if (head === len || this.less(arr[len - 1], slot)) {
        arr.push(slot); // in order: the common case, bursts included
        this.bSorted[b] = len + 1;
        return;
      }
      if (len - head <= SHIFT_INSERT_MAX) {
        let i = len;
        arr.push(slot);
        while (i > head && this.less(slot, arr[i - 1])) {
          arr[i] = arr[i - 1];
          i--;
        }
        arr[i] = slot;
        this.bSorted[b] = len + 1;
        return;
      }
    }
    arr.push(slot); // out of order in a long bucket: unsorted tail, merged when it matters
    const pm = this.bPend[b];
    if (pm < 0 || this.less(slot, pm)) this.bPend[b] = slot;
  }

  /** Smallest entry of bucket b without sorting it, or -1 if empty. */
  private bucketMin(b: number): number {
    const arr = this.bArr[b];
    if (arr === undefined) return -1;
    const head = this.bHead[b];
    let m = head < this.bSorted[b] ? arr[head] : -1;
    const pm = this.bPend[b];
    if (pm >= 0 && (m < 0 || this.less(pm, m))) m = pm;
    return m;
  }

  /** First entry of bucket b, merging the unsorted tail in only if it holds the minimum. */
  private bucketHead(b: number): number {
    const arr = this.bArr[b] as number[];
    const pm = this.bPend[b];
    if (pm >= 0) {
      const head = this.bHead[b];
      if (head === this.bSorted[b] || this.less(pm, arr[head])) this.mergeTail(b);
    }
    return arr[this.bHead[b]];
  }

  private mergeTail(b: number): void {
    const arr = this.bArr[b] as number[];
    const head = this.bHead[b];
    const sorted = this.bSorted[b];
    const tail = arr.slice(sorted);
    if (tail.length > 1) tail.sort(this.cmp); // TimSort: near-linear on the mostly ordered tails we get
    const run = arr.slice(head, sorted);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < run.length && j < tail.length) arr[k++] = this.less(tail[j], run[i]) ? tail[j++] : run[i++];
    while (i < run.length) arr[k++] = run[i++];
    while (j < tail.length) arr[k++] = tail[j++];
    arr.length = k;
    this.bHead[b] = 0;
    this.bSorted[b] = k;
    this.bPend[b] = -1;
  }

  /** Drops the first entry of bucket b (after bucketHead). */
  private popHead(b: number): void {
    const arr = this.bArr[b] as number[];
    const head = this.bHead[b] + 1;
    if (head === arr.length) {
      arr.length = 0;
      this.bHead[b] = 0;
      this.bSorted[b] = 0;
    } else if (head > TRIM_HEAD && head * 2 > arr.length) {
      arr.copyWithin(0, head);
      arr.length -= head;
      this.bSorted[b] -= head;
      this.bHead[b] = 0;
    } else {
      this.bHead[b] = head;
    }
  }

  /**
   * Brown's dequeue walk: from the current day, the first bucket whose minimum
   * falls on the day being visited holds the queue's minimum (no entry is
   * earlier than curDay, and later days' entries sort after it). Moves
   * curDay there. A year without a hit falls back to a direct search.
   */
  private locate(): number {
    if (this.physical === 0) return -1;
    const nb = this.nb;
    const inv = this.invWidth;
    let day = this.curDay;
    let b = this.curBucket;
    for (let n = 0; n < nb; n++) {
      if (this.bArr[b] !== undefined) {
        const m = this.bucketMin(b);
        if (m >= 0 && Math.floor(this.time[m] * inv) <= day) {
          this.curDay = day;
          this.curBucket = b;
          return b;
        }
      }
      day++;
      if (++b === nb) b = 0;
    }
    return this.directSearch();
  }

  private directSearch(): number {
    this.directSearches++;
    let best = -1;
    let bestBucket = -1;
    for (let b = 0; b < this.nb; b++) {
      const m = this.bucketMin(b);
      if (m >= 0 && (best < 0 || this.less(m, best))) {
        best = m;
        bestBucket = b;
      }
    }
    this.curDay = Math.floor(this.time[best] * this.invWidth);
    this.curBucket = bestBucket;
    return bestBucket;
  }

  /** Slot of the first live event (removed ones met on the way are dropped), or -1. */
  private firstLive(): number {
    for (;;) {
      const b = this.locate();
      if (b < 0) return -1;
      const slot = this.bucketHead(b);
      if (this.state[slot] === LIVE) return slot;
      this.popHead(b);
      this.physical--;
      this.dead--;
      this.freeSlot(slot);
    }
  }

  /** Removes the event firstLive() just returned (it heads the current bucket). */
  private takeFirst(slot: number): T {
    const item = this.items[slot] as T;
    this.popHead(this.curBucket);
    this.physical--;
    this.live--;
    this.freeSlot(slot);
    this.afterDeparture();
    return item;
  }

  private kill(slot: number): void {
    this.state[slot] = DEAD;
    this.items[slot] = undefined;
    this.live--;
    this.dead++;
  }

  private afterDeparture(): void {
    const nb = this.policy.onDeparture(this.live, this.nb);
    if (nb > 0 && nb !== this.nb) this.rebuild(nb, true);
    else if (this.dead > COMPACT_MIN_DEAD && this.dead > this.live) this.rebuild(this.nb, false);
  }

  /**
   * Re-places every live event into `nb` buckets of a freshly sampled width,
   * dropping removed ones. O(n + nb). Old buckets are walked from the current
   * day onwards, so each new bucket mostly receives its events in order.
   */
  private rebuild(nb: number, isResize: boolean): void {
    const oldNb = this.nb;
    const slots = new Int32Array(this.live);
    let k = 0;
    let minTime = Infinity;
    for (let n = 0, b = this.curBucket; n < oldNb; n++, b = b + 1 === oldNb ? 0 : b + 1) {
      const arr = this.bArr[b];
      if (arr === undefined) continue;
      for (let i = this.bHead[b]; i < arr.length; i++) {
        const s = arr[i];
        if (this.state[s] === LIVE) {
          slots[k++] = s;
          if (this.time[s] < minTime) minTime = this.time[s];
        } else {
          this.freeSlot(s);
        }
      }
      arr.length = 0;
      if (this.spare.length < nb) this.spare.push(arr);
    }
    this.dead = 0;
    this.physical = k;
    this.width = sampleBucketWidth({
      times: this.time,
      slots,
      count: k,
      sampleSize: this.sampleSize,
      fallback: this.width,
      minWidth: this.minWidth,
    });
    this.invWidth = 1 / this.width;
    this.nb = nb;
    this.allocBuckets(nb);
    this.curDay = k > 0 ? Math.floor(minTime * this.invWidth) : 0;
    this.curBucket = this.bucketOfDay(this.curDay);
    for (let i = 0; i < k; i++) {
      const s = slots[i];
      this.place(s, this.bucketOfDay(Math.floor(this.time[s] * this.invWidth)));
    }
    if (isResize) this.resizes++;
    else this.compactions++;
  }

  // ---- slots ----

  private liveSlot(handle: number): number {
    const slot = handleSlot(handle);
    if (slot < 0 || slot >= this.highWater || this.state[slot] !== LIVE) return -1;
    return this.gen[slot] === handleGeneration(handle) ? slot : -1;
  }

  private allocSlot(): number {
    if (this.freeTop > 0) return this.freeSlots[--this.freeTop];
    if (this.highWater === this.time.length) this.grow();
    return this.highWater++;
  }

  private freeSlot(slot: number): void {
    this.state[slot] = FREE;
    this.items[slot] = undefined;
    this.gen[slot] = (this.gen[slot] + 1) & GEN_MASK;
    this.freeSlots[this.freeTop++] = slot;
  }

  private grow(): void {
    const cap = this.time.length;
    if (cap >= MAX_SLOTS) throw new RangeError(`queue is full (${MAX_SLOTS} events)`);
    const next = Math.min(MAX_SLOTS, cap * 2);
    this.time = grown(this.time, next);
    this.prio = grown(this.prio, next);
    this.seq = grown(this.seq, next);
    this.gen = grown(this.gen, next);
    this.state = grown(this.state, next);
    this.freeSlots = grown(this.freeSlots, next);
  }
}
