/**
 * Token buckets pace dispatch: a due run waits for a token of its tenant and
 * one of its task queue (ARCHITECTURE "run lifecycle" step 3; the per-queue
 * bucket of the edge task-queue service, §5.3: capacity + refill rate, a task
 * leaves only with a token, otherwise it waits for the next one).
 *
 * Continuous refill (tokens are fractional), computed lazily from the `now`
 * passed to each call: no timers, no clock.
 */

export interface TokenBucketOptions {
  /** Most tokens held: the largest burst let through at once. Required, > 0. */
  capacity: number;
  /** Tokens added per second. Required, >= 0 (0: never refills). */
  refillPerSec: number;
  /** Tokens at creation. Default: `capacity` (a new bucket may burst at once). */
  initialTokens?: number;
}

/**
 * Float slack for "enough tokens": a refill of 1 token over 3 ms at 333.33/s
 * lands at 0.99999999; without slack `msUntilAvailable` would be off by one.
 */
const EPS = 1e-9;

function checkOptions(o: TokenBucketOptions): void {
  if (!(o.capacity > 0) || !Number.isFinite(o.capacity)) throw new RangeError(`capacity must be a finite number > 0, got ${o.capacity}`);
  if (!(o.refillPerSec >= 0) || !Number.isFinite(o.refillPerSec)) throw new RangeError(`refillPerSec must be a finite number >= 0, got ${o.refillPerSec}`);
  if (o.initialTokens !== undefined && !(o.initialTokens >= 0)) throw new RangeError(`initialTokens must be >= 0, got ${o.initialTokens}`);
}

function checkCount(n: number): void {
  if (!(n >= 0) || !Number.isFinite(n)) throw new RangeError(`token count must be a finite number >= 0, got ${n}`);
}

export class TokenBucket {
  private cap: number;
  private rate: number;
  private level: number;
  /** Time the level was computed at; undefined until the first call starts the clock. */
  private last: number | undefined;

  constructor(options: TokenBucketOptions) {
    checkOptions(options);
    this.cap = options.capacity;
    this.rate = options.refillPerSec;
    this.level = Math.min(this.cap, options.initialTokens ?? this.cap);
  }

  get capacity(): number {
    return this.cap;
  }

  get refillPerSec(): number {
    return this.rate;
  }

  /** Tokens available at `now` (fractional). */
  available(now: number): number {
    this.refill(now);
    return this.level;
  }

  /** True if `n` tokens could be taken at `now`; takes nothing. */
  canTake(now: number, n = 1): boolean {
    checkCount(n);
    this.refill(now);
    return n <= this.cap && this.level + EPS >= n;
  }

  /** Takes `n` tokens if all are there; otherwise takes none. n > capacity never succeeds. */
  tryTake(now: number, n = 1): boolean {
    if (!this.canTake(now, n)) return false;
    this.level = Math.max(0, this.level - n);
    return true;
  }

  /**
   * Milliseconds from `now` until `n` tokens are available (0: now), assuming
   * nobody else takes meanwhile. Infinity if n > capacity, or if the bucket
   * never refills and is short. Rounded up to whole ms, so
   * `tryTake(now + msUntilAvailable(now, n), n)` succeeds.
   */
  msUntilAvailable(now: number, n = 1): number {
    checkCount(n);
    this.refill(now);
    if (n > this.cap) return Infinity;
    const deficit = n - this.level - EPS / 2;
    if (deficit <= 0) return 0;
    if (this.rate === 0) return Infinity;
    // After a clock step back, the level is as of `last`: count from there.
    const behind = this.last !== undefined && now < this.last ? this.last - now : 0;
    return Math.ceil(behind + (deficit * 1000) / this.rate);
  }

  /** Returns `n` tokens (a dispatch that took them did not happen), up to capacity. */
  refund(now: number, n = 1): void {
    checkCount(n);
    this.refill(now);
    this.level = Math.min(this.cap, this.level + n);
  }

  /** New limits (a tenant's quota changed); the current level is kept, clamped to the new capacity. */
  reconfigure(now: number, options: TokenBucketOptions): void {
    checkOptions(options);
    this.refill(now); // tokens earned so far were earned at the old rate
    this.cap = options.capacity;
    this.rate = options.refillPerSec;
    this.level = Math.min(this.level, this.cap);
  }

  private refill(now: number): void {
    if (!Number.isFinite(now)) throw new RangeError(`now must be a finite number, got ${now}`);
    if (this.last === undefined) {
      this.last = now;
      return;
    }
    // A clock stepping back earns nothing and keeps `last`, so no interval is counted twice.
    if (now <= this.last) return;
    this.level = Math.min(this.cap, this.level + ((now - this.last) * this.rate) / 1000);
    this.last = now;
  }
}

export interface TokenBucketsOptions {
  /**
   * Limits of a key, asked once when the key is first used; undefined means
   * unlimited (no bucket). Keys are the caller's, e.g. `tenant:acme` and
   * `queue:acme/billing`.
   */
  limitsFor: (key: string) => TokenBucketOptions | undefined;
}

/**
 * Buckets by key. A dispatch takes one token from each of several buckets —
 * its tenant's and its task queue's — all or none: taking the tenant token
 * and then failing on the queue would burn tenant capacity for nothing.
 * (Single-threaded: check-then-take at one `now` cannot be interleaved.)
 */
export class TokenBuckets {
  /** null caches "unlimited", so limitsFor is not asked again. */
  private readonly buckets = new Map<string, TokenBucket | null>();
  private readonly limitsFor: (key: string) => TokenBucketOptions | undefined;

  constructor(options: TokenBucketsOptions) {
    this.limitsFor = options.limitsFor;
  }

  /** Number of keys known (limited or not). */
  get size(): number {
    return this.buckets.size;
  }

  /** The bucket of `key`, created on first use; undefined when the key is unlimited. */
  bucket(key: string): TokenBucket | undefined {
    let b = this.buckets.get(key);
    if (b === undefined) {
      const limits = this.limitsFor(key);
      b = limits ? new TokenBucket(limits) : null;
      this.buckets.set(key, b);
    }
    return b ?? undefined;
  }

  /** Takes `n` tokens from every key's bucket, or from none. A key listed twice pays twice. */
  tryTakeAll(now: number, keys: readonly string[], n = 1): boolean {
    const demand = this.demand(keys, n);
    for (const [bucket, need] of demand) if (!bucket.canTake(now, need)) return false;
    for (const [bucket, need] of demand) bucket.tryTake(now, need);
    return true;
  }

  /** Milliseconds until `tryTakeAll(now + ms, keys, n)` would succeed: the slowest bucket's wait. */
  msUntilAvailable(now: number, keys: readonly string[], n = 1): number {
    let wait = 0;
    for (const [bucket, need] of this.demand(keys, n)) wait = Math.max(wait, bucket.msUntilAvailable(now, need));
    return wait;
  }

  /** Gives `n` tokens back to every key's bucket (the dispatch did not happen). */
  refundAll(now: number, keys: readonly string[], n = 1): void {
    for (const [bucket, need] of this.demand(keys, n)) bucket.refund(now, need);
  }

  /** Sets (or, with undefined, lifts) the limits of a key; an existing bucket keeps its level. */
  configure(now: number, key: string, limits: TokenBucketOptions | undefined): void {
    const b = this.buckets.get(key);
    if (!limits) this.buckets.set(key, null);
    else if (b) b.reconfigure(now, limits);
    else this.buckets.set(key, new TokenBucket(limits));
  }

  /** Forgets a key; its limits are asked again on next use. */
  delete(key: string): boolean {
    return this.buckets.delete(key);
  }

  /**
   * Drops buckets that are full at `now` and unlimited entries. A full bucket
   * behaves like a new one, so nothing is lost; this bounds memory when many
   * tenants and queues come and go. Returns how many were dropped.
   */
  prune(now: number): number {
    let dropped = 0;
    for (const [key, b] of this.buckets) {
      if (b === null || b.available(now) >= b.capacity) {
        this.buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  private demand(keys: readonly string[], n: number): Map<TokenBucket, number> {
    checkCount(n);
    const need = new Map<TokenBucket, number>();
    for (const key of keys) {
      const b = this.bucket(key);
      if (b) need.set(b, (need.get(b) ?? 0) + n);
    }
    return need;
  }
}
