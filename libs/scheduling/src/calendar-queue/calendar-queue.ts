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
 * Width factor default. Here an out-of-order event in a long bucket costs a
 * lazy sort, while walking an empty bucket costs one array read, so days
 * narrower than Brown's (one distinct time each rather than three) pay off.
 */
const DEFAULT_WIDTH_FACTOR = 1;

const FREE = 0;
const LIVE = 1;
const DEAD = 2;

/**
 * Events: one Float64Array, 4 numbers (32 bytes) per slot — array-of-structs,
 * so reaching an event costs one cache miss, not one per field.
 * Links (NEXT, and the bucket heads and tails) hold slot + 1; 0 is "none",
 * which is also what a fresh typed array is filled with.
 */
const E_PRIO = 1;
/** generation * 4 + state: one exact integer below 2^28. */
const E_META = 2;
const E_NEXT = 3;

/**
 * Buckets: one Float64Array, 8 numbers (64 bytes, a cache line) per bucket.
 * Each bucket is a singly linked list kept in key order [HEAD … TAIL], plus an
 * unsorted "pending" list of out-of-order arrivals that is sorted and merged
 * in only once it holds the bucket's minimum. The key of TAIL is cached here,
 * so the usual in-order append touches this line and the old tail's NEXT.
 */
const R_HEAD = 0;
const R_TAIL = 1;
/** Length of the sorted list. */
const R_COUNT = 2;
const R_LAST_T = 3;
const R_LAST_P = 4;
const R_PEND_HEAD = 5;
const R_PEND_TAIL = 6;
/** Link to the pending list's smallest entry. */
const R_PEND_MIN = 7;

/** Sorted lists this short take an out-of-order event by walking to its place; longer ones defer it. */
const WALK_INSERT_MAX = 8;
/** Pending lists this short are insertion-sorted. */
const INSERTION_SORT_MAX = 16;
/** Removed-but-present events tolerated before they may trigger a compaction. */
const COMPACT_MIN_DEAD = 64;

export class CalendarQueue<T> implements TimerQueue<T> {
  /** [time, priority, meta, next] per slot. */
  private ev: Float64Array;
  private items: (T | undefined)[] = [];
  private freeSlots: Int32Array;
  private freeTop = 0;
  private highWater = 0;
  private live = 0;
  /** Entries physically in buckets: live + removed-not-yet-dropped. */
  private physical = 0;
  private dead = 0;

  private nb: number;
  private invNb: number;
  private width: number;
  private invWidth: number;
  /** Bucket records, 8 numbers each (see R_*). */
  private rec: Float64Array;
  /** Invariant: no entry's day is before curDay. curBucket = curDay mod nb. */
  private curDay = 0;
  private curBucket = 0;

  /** Scratch for sorting pending lists (no allocation per merge). */
  private sortKeys = new Float64Array(64);
  private sortSlots = new Int32Array(64);

  private readonly policy: ResizePolicy;
  private readonly initialBuckets: number;
  private readonly initialWidth: number;
  private readonly minWidth: number;
  private readonly widthFactor: number;
  private readonly sampleSize: number;
  private resizes = 0;
  private compactions = 0;
  private directSearches = 0;

  /** Stable-sort comparator on (time, priority); equal keys keep their (FIFO) order. */
  private readonly cmp = (a: number, b: number): number => {
    const ta = this.ev[a << 2];
    const tb = this.ev[b << 2];
    if (ta !== tb) return ta < tb ? -1 : 1;
    return this.ev[(b << 2) + E_PRIO] - this.ev[(a << 2) + E_PRIO];
  };

  constructor(options: CalendarQueueOptions = {}) {
    this.policy = options.resizePolicy ?? new PramResizePolicy();
    this.initialBuckets = Math.max(1, Math.floor(options.initialBuckets ?? 2));
    this.minWidth = options.minBucketWidth ?? 1;
    this.initialWidth = Math.max(this.minWidth, options.initialBucketWidth ?? 1);
    this.widthFactor = options.bucketWidthFactor ?? DEFAULT_WIDTH_FACTOR;
    this.sampleSize = Math.max(1, options.widthSampleSize ?? 25);
    if (!(this.minWidth > 0)) throw new RangeError('minBucketWidth must be > 0');
    if (!(this.widthFactor > 0)) throw new RangeError('bucketWidthFactor must be > 0');
    const cap = Math.max(4, Math.min(MAX_SLOTS, options.initialCapacity ?? 64));
    this.ev = new Float64Array(cap * 4);
    this.freeSlots = new Int32Array(cap);
    this.nb = this.initialBuckets;
    this.invNb = 1 / this.nb;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.rec = new Float64Array(this.nb * 8);
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
    const o = slot << 2;
    const ev = this.ev;
    const gen = ev[o + E_META] >>> 2;
    ev[o] = time;
    ev[o + E_PRIO] = priority;
    ev[o + E_META] = gen * 4 + LIVE;
    this.items[slot] = item;
    const day = Math.floor(time * this.invWidth);
    const b = this.bucketOfDay(day);
    // An empty queue may jump forward; an earlier event pulls the scan back.
    if (this.physical === 0 || day < this.curDay) {
      this.curDay = day;
      this.curBucket = b;
    }
    this.physical++;
    this.live++;
    this.place(slot, b, time, priority);
    const nb = this.policy.onArrival(this.live, this.nb);
    if (nb > 0 && nb !== this.nb) this.rebuild(nb, true);
    return encodeHandle(slot, gen);
  }

  peekTime(): number | undefined {
    const slot = this.firstLive();
    return slot < 0 ? undefined : this.ev[slot << 2];
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
      if (slot < 0 || this.ev[slot << 2] > now) break;
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
      if (this.stateOf(s) === LIVE && pred(this.items[s] as T, this.ev[s << 2])) {
        this.kill(s);
        this.afterDeparture();
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    for (let s = 0; s < this.highWater; s++) if (this.stateOf(s) !== FREE) this.freeSlot(s);
    this.live = this.physical = this.dead = 0;
    this.nb = this.initialBuckets;
    this.invNb = 1 / this.nb;
    this.width = this.initialWidth;
    this.invWidth = 1 / this.width;
    this.rec = new Float64Array(this.nb * 8);
    this.curDay = this.curBucket = 0;
    this.policy.reset();
  }

  // ---- ordering ----
  // Keys compare on (time, priority) only. FIFO among equal keys needs no
  // sequence number: lists are only ever appended to, an out-of-order event
  // is placed after its equals, and merges and sorts are stable with the
  // sorted list (older arrivals) winning ties.

  /** Strictly before slot x on (time asc, priority desc). */
  private keyBefore(t: number, p: number, x: number): boolean {
    const tx = this.ev[x << 2];
    return t < tx || (t === tx && p > this.ev[(x << 2) + E_PRIO]);
  }

  private before(a: number, b: number): boolean {
    return this.keyBefore(this.ev[a << 2], this.ev[(a << 2) + E_PRIO], b);
  }

  private stateOf(slot: number): number {
    return this.ev[(slot << 2) + E_META] & 3;
  }

  /** day mod nb, without the slow floating-point `%` (days exceed int32). */
  private bucketOfDay(day: number): number {
    const nb = this.nb;
    const b = day - Math.floor(day * this.invNb) * nb;
    return b < 0 ? b + nb : b >= nb ? b - nb : b;
  }

  // ---- buckets ----

  /** Appends slot to bucket b's sorted list if in order, walks it in if the list is short, else parks it as pending. */
  private place(slot: number, b: number, t: number, p: number): void {
    const rec = this.rec;
    const ev = this.ev;
    const r = b << 3;
    const link = slot + 1;
    ev[(slot << 2) + E_NEXT] = 0;
    if (rec[r + R_PEND_HEAD] === 0) {
      const tail = rec[r + R_TAIL];
      const lt = rec[r + R_LAST_T];
      if (tail === 0 || t > lt || (t === lt && p <= rec[r + R_LAST_P])) {
        // In order (not before the last): the common case, a burst at one instant included.
        if (tail === 0) rec[r + R_HEAD] = link;
        else ev[((tail - 1) << 2) + E_NEXT] = link;
        rec[r + R_TAIL] = link;
        rec[r + R_COUNT]++;
        rec[r + R_LAST_T] = t;
        rec[r + R_LAST_P] = p;
        return;
      }
      if (rec[r + R_COUNT] <= WALK_INSERT_MAX) {
        let prev = 0;
        let cur = rec[r + R_HEAD];
        while (!this.keyBefore(t, p, cur - 1)) {
          prev = cur;
          cur = ev[((cur - 1) << 2) + E_NEXT];
        }
        ev[(slot << 2) + E_NEXT] = cur;
        if (prev === 0) rec[r + R_HEAD] = link;
        else ev[((prev - 1) << 2) + E_NEXT] = link;
        rec[r + R_COUNT]++;
        return;
      }
      rec[r + R_PEND_HEAD] = rec[r + R_PEND_TAIL] = rec[r + R_PEND_MIN] = link;
      return;
    }
    ev[((rec[r + R_PEND_TAIL] - 1) << 2) + E_NEXT] = link;
    rec[r + R_PEND_TAIL] = link;
    if (this.keyBefore(t, p, rec[r + R_PEND_MIN] - 1)) rec[r + R_PEND_MIN] = link;
  }

  /** Smallest entry of bucket b (sorted head or pending minimum), -1 if empty; sorts nothing. */
  private bucketMin(r: number): number {
    const head = this.rec[r + R_HEAD] - 1;
    const pm = this.rec[r + R_PEND_MIN] - 1;
    if (pm < 0) return head;
    if (head < 0) return pm;
    return this.before(pm, head) ? pm : head; // a tie goes to the older, sorted entry
  }

  /** First entry of a non-empty bucket, merging the pending list in only if it holds the minimum. */
  private bucketHead(r: number): number {
    const rec = this.rec;
    if (rec[r + R_PEND_HEAD] !== 0) {
      const head = rec[r + R_HEAD];
      if (head === 0 || this.before(rec[r + R_PEND_MIN] - 1, head - 1)) this.mergePending(r);
    }
    return rec[r + R_HEAD] - 1;
  }

  /** Sorts the pending list and merges it into the sorted list (stable: sorted entries win ties). */
  private mergePending(r: number): void {
    const rec = this.rec;
    const ev = this.ev;
    const m = this.sortPending(r);
    const pend = this.sortSlots;
    let a = rec[r + R_HEAD]; // link into the sorted list
    let j = 0;
    let last = 0; // link of the merged list's last node
    while (a !== 0 && j < m) {
      let next: number;
      if (this.before(pend[j], a - 1)) next = pend[j++] + 1;
      else {
        next = a;
        a = ev[((a - 1) << 2) + E_NEXT];
      }
      if (last === 0) rec[r + R_HEAD] = next;
      else ev[((last - 1) << 2) + E_NEXT] = next;
      last = next;
    }
    if (a !== 0) {
      // The rest of the sorted list is already linked and ends at TAIL.
      if (last === 0) rec[r + R_HEAD] = a;
      else ev[((last - 1) << 2) + E_NEXT] = a;
    } else {
      for (; j < m; j++) {
        const next = pend[j] + 1;
        if (last === 0) rec[r + R_HEAD] = next;
        else ev[((last - 1) << 2) + E_NEXT] = next;
        last = next;
      }
      ev[((last - 1) << 2) + E_NEXT] = 0;
      rec[r + R_TAIL] = last;
      rec[r + R_LAST_T] = ev[(last - 1) << 2];
      rec[r + R_LAST_P] = ev[((last - 1) << 2) + E_PRIO];
    }
    rec[r + R_COUNT] += m;
    rec[r + R_PEND_HEAD] = rec[r + R_PEND_TAIL] = rec[r + R_PEND_MIN] = 0;
  }

  /**
   * Puts the pending list of bucket r, in key order, into sortSlots; returns
   * its length. With whole-ms times and integer priorities (the engine's case)
   * each entry gets one numeric key — ((time − tmin)·P + (pmax − prio))·m +
   * arrival position — and a native Float64Array sort replaces a comparator
   * sort: several times faster on a burst. Position keeps FIFO among equals.
   */
  private sortPending(r: number): number {
    const ev = this.ev;
    let m = 0;
    for (let x = this.rec[r + R_PEND_HEAD]; x !== 0; x = ev[((x - 1) << 2) + E_NEXT]) {
      if (m === this.sortSlots.length) this.sortSlots = grown(this.sortSlots, m * 2);
      this.sortSlots[m++] = x - 1;
    }
    const out = this.sortSlots;
    if (m <= INSERTION_SORT_MAX) {
      for (let k = 1; k < m; k++) {
        const s = out[k];
        let i = k;
        while (i > 0 && this.before(s, out[i - 1])) {
          out[i] = out[i - 1];
          i--;
        }
        out[i] = s;
      }
      return m;
    }
    let tmin = Infinity;
    let tmax = -Infinity;
    let pmin = Infinity;
    let pmax = -Infinity;
    let integral = true;
    for (let k = 0; k < m; k++) {
      const o = out[k] << 2;
      const t = ev[o];
      const p = ev[o + E_PRIO];
      if (t !== Math.floor(t) || p !== Math.floor(p)) {
        integral = false;
        break;
      }
      if (t < tmin) tmin = t;
      if (t > tmax) tmax = t;
      if (p < pmin) pmin = p;
      if (p > pmax) pmax = p;
    }
    const prioRange = pmax - pmin + 1;
    if (integral && (tmax - tmin + 1) * prioRange * m < Number.MAX_SAFE_INTEGER) {
      if (this.sortKeys.length < m) this.sortKeys = new Float64Array(Math.max(m, this.sortKeys.length * 2));
      const keys = this.sortKeys.subarray(0, m);
      for (let k = 0; k < m; k++) {
        const o = out[k] << 2;
        keys[k] = ((ev[o] - tmin) * prioRange + (pmax - ev[o + E_PRIO])) * m + k;
      }
      keys.sort();
      const copy = out.slice(0, m);
      for (let k = 0; k < m; k++) out[k] = copy[keys[k] % m];
      return m;
    }
    const sorted = Array.from(out.subarray(0, m)).sort(this.cmp); // Array sort is stable
    out.set(sorted);
    return m;
  }

  /** Drops the first entry of bucket r's sorted list (after bucketHead). */
  private popHead(r: number, slot: number): void {
    const next = this.ev[(slot << 2) + E_NEXT];
    this.rec[r + R_HEAD] = next;
    if (next === 0) this.rec[r + R_TAIL] = 0;
    this.rec[r + R_COUNT]--;
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
    const rec = this.rec;
    let day = this.curDay;
    let b = this.curBucket;
    for (let n = 0; n < nb; n++) {
      const r = b << 3;
      if (rec[r + R_HEAD] !== 0 || rec[r + R_PEND_HEAD] !== 0) {
        if (Math.floor(this.ev[this.bucketMin(r) << 2] * inv) <= day) {
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
      const m = this.bucketMin(b << 3);
      if (m >= 0 && (best < 0 || this.before(m, best))) {
        best = m;
        bestBucket = b;
      }
    }
    this.curDay = Math.floor(this.ev[best << 2] * this.invWidth);
    this.curBucket = bestBucket;
    return bestBucket;
  }

  /** Slot of the first live event (removed ones met on the way are dropped), or -1. */
  private firstLive(): number {
    for (;;) {
      const b = this.locate();
      if (b < 0) return -1;
      const slot = this.bucketHead(b << 3);
      if (this.stateOf(slot) === LIVE) return slot;
      this.popHead(b << 3, slot);
      this.physical--;
      this.dead--;
      this.freeSlot(slot);
    }
  }

  /** Removes the event firstLive() just returned (it heads the current bucket). */
  private takeFirst(slot: number): T {
    const item = this.items[slot] as T;
    this.popHead(this.curBucket << 3, slot);
    this.physical--;
    this.live--;
    this.freeSlot(slot);
    this.afterDeparture();
    return item;
  }

  private kill(slot: number): void {
    const o = (slot << 2) + E_META;
    this.ev[o] = this.ev[o] - LIVE + DEAD;
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
   * day on, each sorted list then its pending list, so events of equal key
   * reach their new bucket in arrival order and most arrive in key order.
   */
  private rebuild(nb: number, isResize: boolean): void {
    const oldNb = this.nb;
    const rec = this.rec;
    const ev = this.ev;
    const slots = new Int32Array(this.live);
    let k = 0;
    let minTime = Infinity;
    for (let n = 0, b = this.curBucket; n < oldNb; n++, b = b + 1 === oldNb ? 0 : b + 1) {
      const r = b << 3;
      for (const start of [R_HEAD, R_PEND_HEAD]) {
        for (let x = rec[r + start]; x !== 0; ) {
          const s = x - 1;
          x = ev[(s << 2) + E_NEXT];
          if (this.stateOf(s) === LIVE) {
            slots[k++] = s;
            if (ev[s << 2] < minTime) minTime = ev[s << 2];
          } else {
            this.freeSlot(s);
          }
        }
      }
    }
    this.dead = 0;
    this.physical = k;
    this.width = sampleBucketWidth({
      times: ev,
      stride: 4,
      slots,
      count: k,
      sampleSize: this.sampleSize,
      factor: this.widthFactor,
      fallback: this.width,
      minWidth: this.minWidth,
    });
    this.invWidth = 1 / this.width;
    this.nb = nb;
    this.invNb = 1 / nb;
    this.rec = new Float64Array(nb * 8);
    this.curDay = k > 0 ? Math.floor(minTime * this.invWidth) : 0;
    this.curBucket = this.bucketOfDay(this.curDay);
    for (let i = 0; i < k; i++) {
      const s = slots[i];
      const t = ev[s << 2];
      this.place(s, this.bucketOfDay(Math.floor(t * this.invWidth)), t, ev[(s << 2) + E_PRIO]);
    }
    if (isResize) this.resizes++;
    else this.compactions++;
  }

  // ---- slots ----

  private liveSlot(handle: number): number {
    const slot = handleSlot(handle);
    if (slot < 0 || slot >= this.highWater) return -1;
    const meta = this.ev[(slot << 2) + E_META];
    return (meta & 3) === LIVE && meta >>> 2 === handleGeneration(handle) ? slot : -1;
  }

  private allocSlot(): number {
    if (this.freeTop > 0) return this.freeSlots[--this.freeTop];
    if (this.highWater === this.freeSlots.length) this.grow();
    return this.highWater++;
  }

  private freeSlot(slot: number): void {
    const o = (slot << 2) + E_META;
    this.ev[o] = (((this.ev[o] >>> 2) + 1) & GEN_MASK) * 4 + FREE;
    this.items[slot] = undefined;
    this.freeSlots[this.freeTop++] = slot;
  }

  private grow(): void {
    const cap = this.freeSlots.length;
    if (cap >= MAX_SLOTS) throw new RangeError(`queue is full (${MAX_SLOTS} events)`);
    const next = Math.min(MAX_SLOTS, cap * 2);
    this.ev = grown(this.ev, next * 4);
    this.freeSlots = grown(this.freeSlots, next);
  }
}
