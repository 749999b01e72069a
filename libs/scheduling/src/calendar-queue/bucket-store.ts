/**
 * The buckets of a calendar queue, in typed arrays.
 *
 * Each bucket owns a contiguous segment of one shared Float64Array (the
 * arena) holding its entries inline — [time, priority, slot, generation],
 * 32 bytes each — so comparing, scanning and merging a bucket reads
 * consecutive memory and never chases a pointer to the event. A bucket is
 * [head, sorted) in key order, then [sorted, len) appended unsorted
 * ("pending") and merged in lazily, only once it holds the bucket's minimum.
 *
 * Why not Brown's sorted linked lists: every insertion walks the list, and a
 * burst of thousands of runs due at the same millisecond lands in one bucket.
 * Why not a JS array per bucket: a million small arrays are a million heap
 * objects to allocate, collect and reach through an extra pointer. At a
 * million events every extra random memory access is a cache miss: this
 * layout costs an enqueue about two (the bucket's record, its segment end)
 * and a dequeue about one (the item itself), which is what makes the queue
 * beat a binary heap's log n misses.
 *
 * FIFO among equal keys needs no sequence number: entries are only appended,
 * an out-of-order entry is placed after its equals, pending entries are all
 * newer than sorted ones, and sorts and merges are stable with the sorted
 * (older) entry winning a tie.
 */

/** Entry layout in the arena. */
export const E_STRIDE = 4;
export const E_PRIO = 1;
export const E_SLOT = 2;
export const E_GEN = 3;

/** Bucket record layout (Int32Array, 8 per bucket, zero = empty bucket without a segment). */
const R_OFF = 0; // first entry of the segment
const R_CAP = 1; // segment capacity, in entries (a power of two, 0 = none yet)
const R_HEAD = 2; // first unserved entry, relative to R_OFF
const R_LEN = 3; // end of entries
const R_SORTED = 4; // end of the sorted run [head, sorted)
const R_PMIN = 5; // 1 + index of the smallest pending entry, 0 = no pending entries

/** Smallest segment, in entries. */
const MIN_SEGMENT = 4;
/** Sorted runs this short take an out-of-order entry by shifting; longer ones park it as pending. */
const SHIFT_INSERT_MAX = 8;
/** Pending runs this short are insertion-sorted. */
const INSERTION_SORT_MAX = 16;
/** Most distinct (time, priority) ranks for which pending entries are counting-sorted. */
const COUNTING_SORT_MAX_RANKS = 1 << 16;

export class BucketStore {
  /** Entries, E_STRIDE numbers each. Replaced when it grows: re-read after `place`. */
  arena: Float64Array;
  private readonly rec: Int32Array;
  private top = 0;
  /** Free segments by log2(capacity). */
  private readonly freeSegments: number[][] = [];
  /** Entries in free segments. */
  private freeEntries = 0;
  private sortKeys = new Float64Array(64);
  private counts = new Int32Array(64);
  private scratch = new Float64Array(64 * E_STRIDE);
  private runCopy = new Float64Array(64 * E_STRIDE);

  /**
   * `previous`, if given, is a store being replaced (its entries already
   * copied out): its arrays are reused when large enough but not more than
   * 4× too large (a queue that shrank after a burst gives its memory back).
   * Memory already touched is cheaper than fresh pages, which the OS maps and
   * zeroes on first write.
   */
  constructor(
    readonly buckets: number,
    expectedEntries: number,
    previous?: BucketStore,
  ) {
    const recLen = buckets * 8;
    const fits = (have: number, need: number) => have >= need && have <= 4 * Math.max(need, 1024);
    if (previous && fits(previous.rec.buffer.byteLength, recLen * 4)) {
      this.rec = new Int32Array(previous.rec.buffer, 0, recLen);
      this.rec.fill(0);
    } else {
      this.rec = new Int32Array(recLen);
    }
    // Segments are powers of two (≤ 2× their entries), plus headroom for growth.
    const arenaLen = Math.max(64, 4 * expectedEntries) * E_STRIDE;
    this.arena = previous && fits(previous.arena.length, arenaLen) ? previous.arena : new Float64Array(arenaLen);
  }

  /** True when bucket b holds no entry. */
  isEmpty(b: number): boolean {
    return this.rec[(b << 3) + R_LEN] === this.rec[(b << 3) + R_HEAD];
  }

  /** Absolute entry indices [first, end) of bucket b (sorted run, then pending). */
  first(b: number): number {
    return this.rec[(b << 3) + R_OFF] + this.rec[(b << 3) + R_HEAD];
  }

  end(b: number): number {
    return this.rec[(b << 3) + R_OFF] + this.rec[(b << 3) + R_LEN];
  }

  /** Strict key order of two entries: time asc, then priority desc. */
  before(e1: number, e2: number): boolean {
    const a = this.arena;
    const t1 = a[e1 * E_STRIDE];
    const t2 = a[e2 * E_STRIDE];
    return t1 < t2 || (t1 === t2 && a[e1 * E_STRIDE + E_PRIO] > a[e2 * E_STRIDE + E_PRIO]);
  }

  /** Smallest entry of a non-empty bucket (absolute index), without sorting anything. */
  minEntry(b: number): number {
    const r = b << 3;
    const rec = this.rec;
    const off = rec[r + R_OFF];
    const head = off + rec[r + R_HEAD];
    const pm = rec[r + R_PMIN];
    if (pm === 0) return head;
    if (rec[r + R_HEAD] === rec[r + R_SORTED]) return off + pm - 1;
    return this.before(off + pm - 1, head) ? off + pm - 1 : head; // a tie goes to the older, sorted entry
  }

  /** First entry of a non-empty bucket (absolute index), merging pending entries in if one of them is first. */
  headEntry(b: number): number {
    const r = b << 3;
    const rec = this.rec;
    const pm = rec[r + R_PMIN];
    if (pm !== 0) {
      const off = rec[r + R_OFF];
      if (rec[r + R_HEAD] === rec[r + R_SORTED] || this.before(off + pm - 1, off + rec[r + R_HEAD])) this.mergePending(r);
    }
    return rec[r + R_OFF] + rec[r + R_HEAD];
  }

  /** Drops the first entry of bucket b (the one headEntry returned). */
  popHead(b: number): void {
    const r = b << 3;
    const rec = this.rec;
    const head = rec[r + R_HEAD] + 1;
    if (head === rec[r + R_LEN]) {
      // Empty: give the segment back. Its day will not come round for a year, and
      // the next bucket to fill (usually the next day) takes it from the free list.
      this.freeSegment(rec[r + R_OFF], rec[r + R_CAP]);
      rec[r + R_OFF] = rec[r + R_CAP] = rec[r + R_HEAD] = rec[r + R_LEN] = rec[r + R_SORTED] = rec[r + R_PMIN] = 0;
    } else {
      rec[r + R_HEAD] = head;
    }
  }

  /**
   * Fills a fresh store in O(count + buckets): entry i (E_STRIDE numbers from
   * src[i * E_STRIDE]) goes to bucket bucketOf[i]. Buckets get exact-size
   * segments laid out in bucket order, and their entries are left pending —
   * sorted on the bucket's first dequeue, like any pending run — instead of
   * being inserted one by one into random places. Equal keys must come in
   * arrival order (pending sorts are stable by position).
   */
  load(src: Float64Array, bucketOf: Int32Array, count: number): void {
    const rec = this.rec;
    for (let i = 0; i < count; i++) rec[(bucketOf[i] << 3) + R_LEN]++;
    let top = 0;
    for (let r = 0; r < this.buckets << 3; r += 8) {
      const len = rec[r + R_LEN];
      if (len === 0) continue;
      const cap = Math.max(MIN_SEGMENT, 2 ** Math.ceil(Math.log2(len)));
      rec[r + R_OFF] = top;
      rec[r + R_CAP] = cap;
      rec[r + R_LEN] = 0; // now the fill cursor
      top += cap;
    }
    // Headroom for the buckets that will grow next, so the arena is not copied right away.
    if (2 * top * E_STRIDE > this.arena.length) this.arena = new Float64Array(2 * top * E_STRIDE);
    this.top = top;
    const a = this.arena;
    for (let i = 0; i < count; i++) {
      const r = bucketOf[i] << 3;
      const k = rec[r + R_LEN]++;
      const off = rec[r + R_OFF];
      copyEntry(a, (off + k) * E_STRIDE, src, i * E_STRIDE);
      const pm = rec[r + R_PMIN];
      if (pm === 0 || this.before(off + k, off + pm - 1)) rec[r + R_PMIN] = k + 1;
    }
  }

  /** Adds an entry to bucket b. */
  place(b: number, t: number, p: number, slot: number, gen: number): void {
    const r = b << 3;
    const rec = this.rec;
    if (rec[r + R_LEN] === rec[r + R_CAP]) this.makeRoom(r);
    const a = this.arena;
    const off = rec[r + R_OFF];
    const head = rec[r + R_HEAD];
    const len = rec[r + R_LEN];
    let e = (off + len) * E_STRIDE;
    if (rec[r + R_SORTED] === len) {
      const last = e - E_STRIDE;
      if (len === head || t > a[last] || (t === a[last] && p <= a[last + E_PRIO])) {
        // In order (not before the last entry): the common case, a burst at one instant included.
        a[e] = t;
        a[e + E_PRIO] = p;
        a[e + E_SLOT] = slot;
        a[e + E_GEN] = gen;
        rec[r + R_LEN] = rec[r + R_SORTED] = len + 1;
        return;
      }
      if (len - head <= SHIFT_INSERT_MAX) {
        const start = (off + head) * E_STRIDE;
        // Shift later entries up one; the new entry goes after its equals (FIFO).
        while (e > start && (t < a[e - E_STRIDE] || (t === a[e - E_STRIDE] && p > a[e - E_STRIDE + E_PRIO]))) {
          copyEntry(a, e, a, e - E_STRIDE);
          e -= E_STRIDE;
        }
        a[e] = t;
        a[e + E_PRIO] = p;
        a[e + E_SLOT] = slot;
        a[e + E_GEN] = gen;
        rec[r + R_LEN] = rec[r + R_SORTED] = len + 1;
        return;
      }
    }
    // Out of order in a long bucket, or behind pending entries: park it.
    a[e] = t;
    a[e + E_PRIO] = p;
    a[e + E_SLOT] = slot;
    a[e + E_GEN] = gen;
    rec[r + R_LEN] = len + 1;
    const pm = rec[r + R_PMIN];
    if (pm === 0 || this.before(off + len, off + pm - 1)) rec[r + R_PMIN] = len + 1;
  }

  /** Segment full: compact it in place if half of it is served entries, else move to one twice the size. */
  private makeRoom(r: number): void {
    const rec = this.rec;
    const cap = rec[r + R_CAP];
    if (cap === 0) {
      rec[r + R_OFF] = this.allocSegment(MIN_SEGMENT);
      rec[r + R_CAP] = MIN_SEGMENT;
      return;
    }
    let to = rec[r + R_OFF];
    if (rec[r + R_HEAD] === 0 || rec[r + R_LEN] - rec[r + R_HEAD] > cap >> 1) {
      to = this.allocSegment(cap * 2); // may pack the arena, this segment too: read the record after
      this.freeSegment(rec[r + R_OFF], cap);
      rec[r + R_CAP] = cap * 2;
    }
    const off = rec[r + R_OFF];
    const head = rec[r + R_HEAD];
    const len = rec[r + R_LEN];
    moveEntries(this.arena, to * E_STRIDE, this.arena, (off + head) * E_STRIDE, (len - head) * E_STRIDE);
    rec[r + R_OFF] = to;
    rec[r + R_HEAD] = 0;
    rec[r + R_LEN] = len - head;
    rec[r + R_SORTED] -= head;
    if (rec[r + R_PMIN] !== 0) rec[r + R_PMIN] -= head;
  }

  private allocSegment(cap: number): number {
    const list = this.freeSegments[31 - Math.clz32(cap)];
    if (list !== undefined && list.length > 0) {
      this.freeEntries -= cap;
      return list.pop() as number;
    }
    if ((this.top + cap) * E_STRIDE > this.arena.length) this.growArena(cap);
    const off = this.top;
    this.top += cap;
    return off;
  }

  private freeSegment(off: number, cap: number): void {
    (this.freeSegments[31 - Math.clz32(cap)] ??= []).push(off);
    this.freeEntries += cap;
  }

  /**
   * The arena is full. A free segment is reused only at its own size, and the
   * sizes drift: at 1M bursty events, after 1.5M hold rounds, 2.3M of the
   * arena's 3.9M entries sat in free 16k–64k segments while the buckets of
   * one instant asked for other sizes. Doubling would copy all 3.9M entries
   * into 256 MB; when at least half is free, the live entries (1.6M here,
   * ~100 ms on the 2-core VM) are packed into an arena of the same size instead.
   */
  private growArena(cap: number): void {
    const pack = 2 * this.freeEntries >= this.top;
    const used = pack ? this.top - this.freeEntries : this.top;
    const next = new Float64Array(Math.max(this.arena.length * (pack ? 1 : 2), 2 * (used + cap) * E_STRIDE));
    if (!pack) {
      next.set(this.arena.subarray(0, this.top * E_STRIDE));
      this.arena = next;
      return;
    }
    const rec = this.rec;
    let top = 0;
    for (let r = 0; r < this.buckets << 3; r += 8) {
      if (rec[r + R_CAP] === 0) continue;
      const head = rec[r + R_HEAD];
      moveEntries(next, top * E_STRIDE, this.arena, (rec[r + R_OFF] + head) * E_STRIDE, (rec[r + R_LEN] - head) * E_STRIDE);
      rec[r + R_OFF] = top;
      rec[r + R_HEAD] = 0;
      rec[r + R_LEN] -= head;
      rec[r + R_SORTED] -= head;
      if (rec[r + R_PMIN] !== 0) rec[r + R_PMIN] -= head;
      top += rec[r + R_CAP];
    }
    this.arena = next;
    this.top = top;
    this.freeSegments.length = 0;
    this.freeEntries = 0;
  }

  /** Sorts the pending entries and merges them with the sorted run, into [0, len) of the segment. */
  private mergePending(r: number): void {
    const rec = this.rec;
    const off = rec[r + R_OFF];
    const head = rec[r + R_HEAD];
    const sorted = rec[r + R_SORTED];
    const m = rec[r + R_LEN] - sorted;
    const run = sorted - head;
    const pend = this.sortPending(off + sorted, m);
    if (this.runCopy.length < run * E_STRIDE) this.runCopy = new Float64Array(run * 2 * E_STRIDE);
    const a = this.arena;
    const rc = this.runCopy;
    moveEntries(rc, 0, a, (off + head) * E_STRIDE, run * E_STRIDE);
    const ri = run * E_STRIDE;
    const pj = m * E_STRIDE;
    let i = 0;
    let j = 0;
    let k = off * E_STRIDE;
    while (i < ri && j < pj) {
      // A pending entry goes first only if strictly before: a tie keeps the older, sorted entry first.
      if (pend[j] < rc[i] || (pend[j] === rc[i] && pend[j + E_PRIO] > rc[i + E_PRIO])) {
        copyEntry(a, k, pend, j);
        j += E_STRIDE;
      } else {
        copyEntry(a, k, rc, i);
        i += E_STRIDE;
      }
      k += E_STRIDE;
    }
    if (i < ri) moveEntries(a, k, rc, i, ri - i);
    else if (j < pj) moveEntries(a, k, pend, j, pj - j);
    rec[r + R_HEAD] = 0;
    rec[r + R_LEN] = rec[r + R_SORTED] = run + m;
    rec[r + R_PMIN] = 0;
  }

  /**
   * The m entries from absolute index `from`, in key order, into scratch;
   * stable, so equal keys keep arrival order. With whole-ms times and integer
   * priorities (the engine's case) an entry's rank is (time − tmin)·P +
   * (pmax − prio): few ranks (a burst) → counting sort, linear; else the key
   * rank·m + position goes through a native Float64Array sort instead of a
   * comparator sort.
   */
  private sortPending(from: number, m: number): Float64Array {
    if (this.scratch.length < m * E_STRIDE) this.scratch = new Float64Array(m * 2 * E_STRIDE);
    const out = this.scratch;
    const a = this.arena;
    const base = from * E_STRIDE;
    if (m <= INSERTION_SORT_MAX) {
      for (let k = 0; k < m; k++) {
        const s = base + k * E_STRIDE;
        const t = a[s];
        const p = a[s + E_PRIO];
        let e = k * E_STRIDE;
        while (e > 0 && (t < out[e - E_STRIDE] || (t === out[e - E_STRIDE] && p > out[e - E_STRIDE + E_PRIO]))) {
          copyEntry(out, e, out, e - E_STRIDE);
          e -= E_STRIDE;
        }
        copyEntry(out, e, a, s);
      }
      return out;
    }
    let tmin = Infinity;
    let tmax = -Infinity;
    let pmin = Infinity;
    let pmax = -Infinity;
    let integral = true;
    for (let k = 0; k < m; k++) {
      const t = a[base + k * E_STRIDE];
      const p = a[base + k * E_STRIDE + E_PRIO];
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
    const ranks = (tmax - tmin + 1) * prioRange;
    let order: ArrayLike<number>;
    if (integral && ranks <= COUNTING_SORT_MAX_RANKS && ranks <= 4 * m) {
      // Few distinct keys (a burst: one instant, a handful of priorities):
      // a stable counting sort, linear in m.
      if (this.counts.length < ranks + 1) this.counts = new Int32Array(ranks + 1);
      const counts = this.counts;
      counts.fill(0, 0, ranks + 1);
      if (this.sortKeys.length < m) this.sortKeys = new Float64Array(m * 2);
      const rank = this.sortKeys; // rank of entry k, reused as storage
      for (let k = 0; k < m; k++) {
        const s = base + k * E_STRIDE;
        rank[k] = (a[s] - tmin) * prioRange + (pmax - a[s + E_PRIO]);
        counts[rank[k] + 1]++;
      }
      for (let x = 1; x <= ranks; x++) counts[x] += counts[x - 1];
      for (let k = 0; k < m; k++) copyEntry(out, counts[rank[k]]++ * E_STRIDE, a, base + k * E_STRIDE);
      return out;
    }
    if (integral && ranks * m < Number.MAX_SAFE_INTEGER) {
      if (this.sortKeys.length < m) this.sortKeys = new Float64Array(m * 2);
      const keys = this.sortKeys.subarray(0, m);
      for (let k = 0; k < m; k++) {
        const s = base + k * E_STRIDE;
        keys[k] = ((a[s] - tmin) * prioRange + (pmax - a[s + E_PRIO])) * m + k;
      }
      keys.sort();
      for (let k = 0; k < m; k++) keys[k] = keys[k] % m;
      order = keys;
    } else {
      // Array.prototype.sort is stable: equal keys keep arrival order.
      order = Array.from({ length: m }, (_, k) => k).sort((x, y) => {
        const tx = a[base + x * E_STRIDE];
        const ty = a[base + y * E_STRIDE];
        return tx !== ty ? (tx < ty ? -1 : 1) : a[base + y * E_STRIDE + E_PRIO] - a[base + x * E_STRIDE + E_PRIO];
      });
    }
    for (let k = 0; k < m; k++) copyEntry(out, k * E_STRIDE, a, base + order[k] * E_STRIDE);
    return out;
  }
}

/**
 * Copies n numbers from src[s] to dst[d] (forward; fine for a move down in
 * the same array). A loop for short runs: the copyWithin/set builtins cost
 * more in call overhead than a few dozen element moves.
 */
function moveEntries(dst: Float64Array, d: number, src: Float64Array, s: number, n: number): void {
  if (n > 256) {
    if (dst === src) dst.copyWithin(d, s, s + n);
    else dst.set(src.subarray(s, s + n), d);
    return;
  }
  for (let i = 0; i < n; i++) dst[d + i] = src[s + i];
}

function copyEntry(dst: Float64Array, d: number, src: Float64Array, s: number): void {
  dst[d] = src[s];
  dst[d + E_PRIO] = src[s + E_PRIO];
  dst[d + E_SLOT] = src[s + E_SLOT];
  dst[d + E_GEN] = src[s + E_GEN];
}
