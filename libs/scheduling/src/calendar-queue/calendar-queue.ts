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
 *   event lives in bucket ⌊t/δ⌋ mod NB; dequeue walks the days from the last
 *   one served and takes the first event of the current year, falling back to
 *   a direct search when a whole year is empty.
 * - §1: the naive rule (double when NE > 2NB, halve when NE < NB/2), as
 *   `NaiveResizePolicy`, and the point that each resize is an O(n) rebuild,
 *   so a size swinging across a threshold makes the queue thrash.
 * - §2: resizing from an M/M/1/N forecast of the size instead
 *   (`PramResizePolicy`): its triggers NE > 3NB / NE < NB/3, then a rebuild
 *   only if the forecast leaves the band too, sized for the forecast.
 * - §3.1: the virtual timestamp, reduced to a tie-break inside one
 *   millisecond (timer-queue.ts says why it must not shift real time).
 *
 * Simplified or changed:
 * - formulas (3), (5), (14) did not survive the OCR: the forecast uses the
 *   textbook M/M/1/N mean and a drift term (mm1n.ts). The §2.2 correction η
 *   for a finite number of buckets is not computed; its premise (Theorem 1:
 *   a year long enough to hold the whole pending span behaves like infinitely
 *   many buckets) is what sizing NB near the forecast size, with days of
 *   about one distinct time, provides.
 * - rates are counted per queue operation, not per second (no clock here).
 * - the width: Brown's head sampling, over *distinct* times, one distinct
 *   time per day by default (bucket-width.ts). Brown and PRAM re-sample it
 *   only when they resize, and PRAM resizes rarely while the density drifts
 *   (its §5 leaves width changes open), so the queue also re-samples when the
 *   days it serves hold far more or fewer distinct times than targeted
 *   (checkWidth: a "retune", same bucket count, counted apart from resizes).
 * - buckets are contiguous typed-array segments with keys inline, sorted
 *   lazily (bucket-store.ts), not sorted linked lists.
 * - removal is lazy: a removed event is marked and skipped when reached; a
 *   rebuild drops them once they outnumber the live ones.
 * - a resize asked for on an arrival waits for the next read: arrivals until
 *   then are appended, unsorted, to a staging buffer, and the one rebuild
 *   places them all (see `enqueue`).
 * - handles are numbers and nothing is allocated per event.
 */
import { checkFinite, checkTime, encodeHandle, GEN_MASK, grown, handleGeneration, handleSlot, MAX_SLOTS, MAX_TIME } from '../slot-handles';
import type { QueueHandle, TimerQueue } from '../timer-queue';
import { sampleBucketWidth } from './bucket-width';
import { BucketStore, E_GEN, E_PRIO, E_SLOT, E_STRIDE } from './bucket-store';
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
   * At least 0.96, so day numbers (time / width) stay exact integers.
   */
  minBucketWidth?: number;
  /**
   * Bucket width = this × mean gap between the distinct times at the head.
   * Brown used 3 (about three events per day, for sorted linked lists).
   * Default 1 (see DEFAULT_WIDTH_FACTOR for why).
   */
  bucketWidthFactor?: number;
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
  /** Rebuilds that only re-sampled a stale bucket width (same bucket count). */
  retunes: number;
  /** Current number of buckets (NB). */
  buckets: number;
  /** Current bucket width δ in ms. */
  bucketWidth: number;
  /** Dequeues that found a whole year empty and searched every bucket. */
  directSearches: number;
  /** Name of the resize policy. */
  policy: string;
}


/**
 * Width factor default. Brown's 3 (about three events a day) suits sorted
 * linked lists; here an out-of-order event in a long bucket costs a lazy
 * sort while an empty bucket costs one read, so days holding about one
 * distinct time each are cheaper.
 */
const DEFAULT_WIDTH_FACTOR = 1;

const FREE = 0;
const LIVE = 1;
const DEAD = 2;
/** Removed-but-present events tolerated before they may trigger a compaction. */
const COMPACT_MIN_DEAD = 64;
/** Staging buffer size kept between fills, in entries. */
const MIN_STAGED = 64;
/** Dequeues between two checks of the bucket width against the events actually served. */
const WIDTH_CHECK_EVERY = 4096;

export class CalendarQueue<T> implements TimerQueue<T> {
  // ---- events, by slot: only what handles need; keys live in the buckets ----
  /** generation * 4 + state. */
  private meta: Int32Array;
  private items: (T | undefined)[] = [];
  private freeSlots: Int32Array;
  private freeTop = 0;
  private highWater = 0;
  private live = 0;
  /** Entries physically in buckets: live + removed-not-yet-dropped. */
  private physical = 0;
  /** Removed events not yet dropped, in buckets or staged. */
  private dead = 0;
  /** Arrivals since a resize was asked for, not yet in buckets (E_STRIDE numbers each, arrival order). */
  private staged: Float64Array;
  private stagedCount = 0;
  /** The bucket count asked for by the policy; differs from nb while a resize waits for the next read. */
  private targetNb: number;

  // ---- the calendar ----
  private store: BucketStore;
  private nb: number;
  private invNb: number;
  private width: number;
  private invWidth: number;
  /** Invariant: no entry's day is before curDay. curBucket = curDay mod nb. */
  private curDay = 0;
  private curBucket = 0;

  private readonly policy: ResizePolicy;
  private readonly initialBuckets: number;
  private readonly initialWidth: number;
  private readonly minWidth: number;
  private readonly widthFactor: number;
  private readonly sampleSize: number;
  private resizes = 0;
  private compactions = 0;
  private directSearches = 0;
  private retunes = 0;
  // Width check from the dequeue stream (see checkWidth).
  private served = 0;
  private servedDistinct = 0;
  private lastServed = NaN;
  private windowStartDay = 0;
  private retuneAllowedAt = 0;
  private staleChecks = 0;

  constructor(options: CalendarQueueOptions = {}) {
    this.policy = options.resizePolicy ?? new PramResizePolicy();
    this.initialBuckets = Math.max(1, Math.floor(options.initialBuckets ?? 2));
    this.minWidth = options.minBucketWidth ?? 1;
    this.initialWidth = Math.max(this.minWidth, options.initialBucketWidth ?? 1);
    this.widthFactor = options.bucketWidthFactor ?? DEFAULT_WIDTH_FACTOR;
    this.sampleSize = Math.max(1, options.widthSampleSize ?? 25);
    // Day numbers (time / width) must stay exact integers for times up to MAX_TIME.
    if (!(this.minWidth >= MAX_TIME / 2 ** 53)) throw new RangeError(`minBucketWidth must be >= ${MAX_TIME / 2 ** 53}`);
    if (!(this.widthFactor > 0)) throw new RangeError('bucketWidthFactor must be > 0');
    const cap = Math.max(4, Math.min(MAX_SLOTS, options.initialCapacity ?? 64));
    this.meta = new Int32Array(cap);
    this.freeSlots = new Int32Array(cap);
    this.nb = this.targetNb = this.initialBuckets;
    this.invNb = 1 / this.nb;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.store = new BucketStore(this.nb, cap);
    this.staged = new Float64Array(MIN_STAGED * E_STRIDE);
  }

  get size(): number {
    return this.live;
  }

  /** The calendar as it serves: staged arrivals are placed (and a waiting resize done) first. */
  get stats(): CalendarQueueStats {
    this.flush();
    return {
      resizes: this.resizes,
      compactions: this.compactions,
      buckets: this.nb,
      bucketWidth: this.width,
      directSearches: this.directSearches,
      retunes: this.retunes,
      policy: this.policy.name,
    };
  }

  enqueue(item: T, time: number, priority = 0): QueueHandle {
    checkTime(time);
    checkFinite('priority', priority);
    const slot = this.allocSlot();
    const gen = this.meta[slot] >>> 2;
    this.meta[slot] = gen * 4 + LIVE;
    this.items[slot] = item;
    this.live++;
    // Once a resize is asked for, placing into buckets about to be rebuilt is
    // wasted work (a random write each), so arrivals are staged until the next
    // read and the rebuild places them all; the policy is asked as if the
    // resize were done. Filling 1M bursty events: 1 rebuild instead of 6 (PRAM)
    // or 19 (Brown's doublings). A read follows each claim batch in the
    // engine's steady state, so little is staged there.
    if (this.stagedCount > 0 || this.targetNb !== this.nb) this.stage(time, priority, slot, gen);
    else this.place(time, priority, slot, gen);
    const nb = this.policy.onArrival(this.live, this.targetNb);
    if (nb > 0) this.targetNb = nb;
    return encodeHandle(slot, gen);
  }

  peekTime(): number | undefined {
    const e = this.firstLive();
    return e < 0 ? undefined : this.store.arena[e * E_STRIDE];
  }

  peek(): T | undefined {
    const e = this.firstLive();
    return e < 0 ? undefined : this.items[this.store.arena[e * E_STRIDE + E_SLOT]];
  }

  dequeue(): T | undefined {
    const e = this.firstLive();
    return e < 0 ? undefined : this.takeFirst(e);
  }

  popDue(now: number, max = Infinity): T[] {
    const out: T[] = [];
    while (out.length < max) {
      const e = this.firstLive();
      if (e < 0 || this.store.arena[e * E_STRIDE] > now) break;
      out.push(this.takeFirst(e));
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
    this.flush();
    const store = this.store;
    let removed = 0;
    for (let b = 0; b < this.nb; b++) {
      for (let e = store.first(b), end = store.end(b); e < end; e++) {
        const slot = store.arena[e * E_STRIDE + E_SLOT];
        if ((this.meta[slot] & 3) === LIVE && pred(this.items[slot] as T, store.arena[e * E_STRIDE])) {
          this.kill(slot);
          removed++;
        }
      }
    }
    // The policy sees the departures only now: a rebuild mid-walk would move the entries.
    let nb = 0;
    for (let i = 0; i < removed; i++) nb = this.policy.onDeparture(this.live, this.nb) || nb;
    if (nb > 0 && nb !== this.nb) this.rebuild(nb, 'resize');
    else if (removed > 0) this.afterDeparture();
    return removed;
  }

  clear(): void {
    for (let s = 0; s < this.highWater; s++) if ((this.meta[s] & 3) !== FREE) this.freeSlot(s, this.meta[s] >>> 2);
    this.live = this.physical = this.dead = this.stagedCount = 0;
    this.nb = this.targetNb = this.initialBuckets;
    this.invNb = 1 / this.nb;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.store = new BucketStore(this.nb, 0);
    this.curDay = this.curBucket = 0;
    this.policy.reset();
  }

  /** day mod nb, without the slow floating-point `%` (days exceed int32). */
  private bucketOfDay(day: number): number {
    const nb = this.nb;
    const b = day - Math.floor(day * this.invNb) * nb;
    return b < 0 ? b + nb : b >= nb ? b - nb : b;
  }

  /**
   * Brown's dequeue walk: from the current day, the first bucket whose minimum
   * falls on the day being visited holds the queue's minimum (no entry is
   * earlier than curDay, and later days' entries sort after it). Moves
   * curDay there. A year without a hit falls back to a direct search.
   */
  private locate(): number {
    this.flush();
    if (this.physical === 0) return -1;
    const store = this.store;
    const nb = this.nb;
    const inv = this.invWidth;
    let day = this.curDay;
    let b = this.curBucket;
    for (let n = 0; n < nb; n++) {
      if (!store.isEmpty(b) && Math.floor(store.arena[store.minEntry(b) * E_STRIDE] * inv) <= day) {
        this.curDay = day;
        this.curBucket = b;
        return b;
      }
      day++;
      if (++b === nb) b = 0;
    }
    return this.directSearch();
  }

  private directSearch(): number {
    this.directSearches++;
    const store = this.store;
    let best = -1;
    let bestBucket = -1;
    for (let b = 0; b < this.nb; b++) {
      if (store.isEmpty(b)) continue;
      const m = store.minEntry(b);
      if (best < 0 || store.before(m, best)) {
        best = m;
        bestBucket = b;
      }
    }
    this.curDay = Math.floor(store.arena[best * E_STRIDE] * this.invWidth);
    this.curBucket = bestBucket;
    return bestBucket;
  }

  /** Entry of the first live event (removed ones met on the way are dropped), or -1. */
  private firstLive(): number {
    for (;;) {
      const b = this.locate();
      if (b < 0) return -1;
      const e = this.store.headEntry(b);
      // With nothing removed there is nothing to skip: no need to touch the slot.
      if (this.dead === 0) return e;
      const slot = this.store.arena[e * E_STRIDE + E_SLOT];
      if ((this.meta[slot] & 3) === LIVE) return e;
      this.store.popHead(b);
      this.physical--;
      this.dead--;
      this.freeSlot(slot, this.store.arena[e * E_STRIDE + E_GEN]);
    }
  }

  /** Removes the entry firstLive() just returned (it heads the current bucket). */
  private takeFirst(e: number): T {
    const arena = this.store.arena;
    const slot = arena[e * E_STRIDE + E_SLOT];
    const item = this.items[slot] as T;
    const t = arena[e * E_STRIDE];
    if (t !== this.lastServed) {
      this.servedDistinct++;
      this.lastServed = t;
    }
    this.store.popHead(this.curBucket);
    this.physical--;
    this.live--;
    this.freeSlot(slot, arena[e * E_STRIDE + E_GEN]);
    if (++this.served === WIDTH_CHECK_EVERY) this.checkWidth();
    this.afterDeparture();
    return item;
  }

  /**
   * The width is sampled only at a rebuild, and PRAM rebuilds rarely — on
   * purpose — while the density of events may drift (PRAM §5 leaves this
   * open). The dequeue stream shows how many distinct times the days served
   * held; when that is far from the target (widthFactor per day) twice in a
   * row — a drift, not one burst — the queue re-samples the width, at most
   * once per max(WIDTH_CHECK_EVERY, size) dequeues, so the O(n) rebuild stays
   * amortised O(1).
   */
  private checkWidth(): void {
    const days = this.curDay - this.windowStartDay + 1;
    const perDay = this.servedDistinct / days;
    const stale = perDay > 2 * this.widthFactor || perDay < this.widthFactor / 16;
    this.staleChecks = stale ? this.staleChecks + 1 : 0;
    this.retuneAllowedAt -= this.served;
    this.startWidthWindow();
    if (this.staleChecks >= 2 && this.retuneAllowedAt <= 0 && this.live > 0) {
      this.staleChecks = 0;
      this.retuneAllowedAt = Math.max(WIDTH_CHECK_EVERY, this.live);
      this.rebuild(this.nb, 'retune');
    }
  }

  private kill(slot: number): void {
    this.meta[slot] = (this.meta[slot] >>> 2) * 4 + DEAD;
    this.items[slot] = undefined;
    this.live--;
    this.dead++;
  }

  private afterDeparture(): void {
    const nb = this.policy.onDeparture(this.live, this.targetNb);
    if (nb > 0) this.targetNb = nb;
    // A removal while arrivals are staged leaves the rebuild to the flush.
    if (this.stagedCount > 0) return;
    if (this.targetNb !== this.nb) this.rebuild(this.targetNb, 'resize');
    else if (this.dead > COMPACT_MIN_DEAD && this.dead > this.live) this.rebuild(this.nb, 'compaction');
  }

  /** Puts an event into its bucket now. */
  private place(time: number, priority: number, slot: number, gen: number): void {
    const day = Math.floor(time * this.invWidth);
    const b = this.bucketOfDay(day);
    // An empty queue may jump forward; an earlier event pulls the scan back.
    if (this.physical === 0 || day < this.curDay) {
      this.curDay = day;
      this.curBucket = b;
    }
    this.physical++;
    this.store.place(b, time, priority, slot, gen);
  }

  private stage(time: number, priority: number, slot: number, gen: number): void {
    if ((this.stagedCount + 1) * E_STRIDE > this.staged.length) this.staged = grown(this.staged, this.staged.length * 2);
    const e = this.stagedCount++ * E_STRIDE;
    this.staged[e] = time;
    this.staged[e + E_PRIO] = priority;
    this.staged[e + E_SLOT] = slot;
    this.staged[e + E_GEN] = gen;
  }

  /** Before any read: the waiting resize (which takes the staged events along), or the staged events one by one. */
  private flush(): void {
    if (this.targetNb !== this.nb) {
      this.rebuild(this.targetNb, 'resize');
      return;
    }
    const st = this.staged;
    for (let e = 0; e < this.stagedCount * E_STRIDE; e += E_STRIDE) {
      const slot = st[e + E_SLOT];
      if ((this.meta[slot] & 3) === LIVE) this.place(st[e], st[e + E_PRIO], slot, st[e + E_GEN]);
      else this.dropStaged(slot, st[e + E_GEN]);
    }
    this.stagedCount = 0;
  }

  private dropStaged(slot: number, gen: number): void {
    this.freeSlot(slot, gen);
    this.dead--;
  }

  /**
   * Re-places every live event into `nb` buckets of a freshly sampled width,
   * dropping removed ones. O(n + nb). Old buckets are walked from the current
   * day on, each sorted run then its pending entries, so events of equal key
   * reach their new bucket in arrival order, and most arrive in key order.
   */
  private rebuild(nb: number, why: 'resize' | 'compaction' | 'retune'): void {
    const old = this.store;
    const oldNb = this.nb;
    // A fill (nothing in buckets yet) is compacted in place in its staging
    // buffer: no second copy of every event (32 MB at 1M events).
    const kept = this.physical === 0 ? this.staged : new Float64Array(this.live * E_STRIDE);
    let k = 0;
    let minTime = Infinity;
    for (let n = 0, b = this.curBucket; n < oldNb; n++, b = b + 1 === oldNb ? 0 : b + 1) {
      for (let e = old.first(b) * E_STRIDE, end = old.end(b) * E_STRIDE; e < end; e += E_STRIDE) {
        const a = old.arena;
        const slot = a[e + E_SLOT];
        // With nothing removed, skip the slot lookup: a random access per event.
        if (this.dead === 0 || (this.meta[slot] & 3) === LIVE) {
          kept[k] = a[e];
          kept[k + E_PRIO] = a[e + E_PRIO];
          kept[k + E_SLOT] = slot;
          kept[k + E_GEN] = a[e + E_GEN];
          k += E_STRIDE;
          if (a[e] < minTime) minTime = a[e];
        } else {
          this.freeSlot(slot, a[e + E_GEN]);
        }
      }
    }
    // Staged arrivals are newer than every bucketed event: after them, equal keys stay FIFO.
    // (When kept is the staging buffer, k <= e: the copy only moves entries down.)
    const st = this.staged;
    for (let e = 0; e < this.stagedCount * E_STRIDE; e += E_STRIDE) {
      const slot = st[e + E_SLOT];
      if ((this.meta[slot] & 3) !== LIVE) {
        this.dropStaged(slot, st[e + E_GEN]);
        continue;
      }
      kept[k] = st[e];
      kept[k + E_PRIO] = st[e + E_PRIO];
      kept[k + E_SLOT] = slot;
      kept[k + E_GEN] = st[e + E_GEN];
      k += E_STRIDE;
      if (st[e] < minTime) minTime = st[e];
    }
    // A buffer grown by a large fill goes back: the steady state stages nothing.
    if (this.stagedCount > MIN_STAGED) this.staged = new Float64Array(MIN_STAGED * E_STRIDE);
    this.stagedCount = 0;
    const count = k / E_STRIDE;
    this.dead = 0;
    this.physical = count;
    this.width = sampleBucketWidth({
      times: kept,
      stride: E_STRIDE,
      count,
      sampleSize: this.sampleSize,
      factor: this.widthFactor,
      fallback: this.width,
      minWidth: this.minWidth,
    });
    this.invWidth = 1 / this.width;
    this.nb = this.targetNb = nb;
    this.invNb = 1 / nb;
    this.store = new BucketStore(nb, count, old);
    this.curDay = count > 0 ? Math.floor(minTime * this.invWidth) : 0;
    this.curBucket = this.bucketOfDay(this.curDay);
    const bucketOf = new Int32Array(count);
    for (let i = 0; i < count; i++) bucketOf[i] = this.bucketOfDay(Math.floor(kept[i * E_STRIDE] * this.invWidth));
    this.store.load(kept, bucketOf, count);
    if (why === 'resize') this.resizes++;
    else if (why === 'compaction') this.compactions++;
    else this.retunes++;
    this.startWidthWindow();
  }

  /**
   * The time being served when a window starts counts as one of its distinct
   * times: a window inside one instant (4,096 of the 15,000 runs due at one
   * second, 1M bursty) holds one distinct time a day, not zero. Counted as zero,
   * two such windows in a row read as "far too sparse" and forced an O(n) retune
   * that kept the width (1.16 → 1.09 ms), once per 1M dequeues: ~70 ms, 13% of
   * the 1M-bursty hold phase.
   */
  private startWidthWindow(): void {
    this.served = this.servedDistinct = 0;
    this.lastServed = NaN;
    this.windowStartDay = this.curDay;
  }

  // ---- slots ----

  private liveSlot(handle: number): number {
    const slot = handleSlot(handle);
    if (slot < 0 || slot >= this.highWater) return -1;
    return this.meta[slot] === handleGeneration(handle) * 4 + LIVE ? slot : -1;
  }

  private allocSlot(): number {
    if (this.freeTop > 0) return this.freeSlots[--this.freeTop];
    if (this.highWater === this.meta.length) this.grow();
    return this.highWater++;
  }

  /** Frees a slot whose generation is known (read from its bucket entry: no extra memory access). */
  private freeSlot(slot: number, gen: number): void {
    this.meta[slot] = ((gen + 1) & GEN_MASK) * 4 + FREE;
    this.items[slot] = undefined;
    this.freeSlots[this.freeTop++] = slot;
  }

  private grow(): void {
    const cap = this.meta.length;
    if (cap >= MAX_SLOTS) throw new RangeError(`queue is full (${MAX_SLOTS} events)`);
    const next = Math.min(MAX_SLOTS, cap * 2);
    this.meta = grown(this.meta, next);
    this.freeSlots = grown(this.freeSlots, next);
  }
}
