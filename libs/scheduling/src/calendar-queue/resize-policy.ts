/**
 * When a calendar queue rebuilds, and with how many buckets.
 *
 * A rebuild is O(n) (every event is re-placed), so the policy decides the
 * queue's cost under bursts. The queue calls the policy after every arrival
 * and every departure (dequeue, popDue, remove) with its live size and bucket
 * count; the answer is the bucket count to rebuild with, or 0 to keep going.
 * These calls sit on the hot path: a policy must answer "no" in O(1).
 *
 * Policies are stateful (PRAM keeps a window of recent operations): give each
 * queue its own instance.
 */
export interface ResizePolicy {
  /** Short name, for stats and benchmarks. */
  readonly name: string;
  /** After an enqueue. Returns the new bucket count, or 0 to keep the current one. */
  onArrival(size: number, buckets: number): number;
  /** After a departure. Returns the new bucket count, or 0 to keep the current one. */
  onDeparture(size: number, buckets: number): number;
  /** Forget everything learned (the queue was cleared). */
  reset(): void;
}

export interface NaiveResizePolicyOptions {
  /** Fewest buckets; never halves below. Default 2 (Brown). */
  minBuckets?: number;
  /** Most buckets (each costs 32 bytes); never doubles above. Default 2^22. */
  maxBuckets?: number;
}

/**
 * Brown's rule (Brown 1988, as quoted in PRAM §1): double the buckets when
 * NE > 2·NB, halve them when NE < NB/2. It looks only at the current size, so
 * a queue whose size swings across a threshold rebuilds on every swing.
 */
export class NaiveResizePolicy implements ResizePolicy {
  readonly name = 'naive';
  private readonly minBuckets: number;
  private readonly maxBuckets: number;

  constructor(options: NaiveResizePolicyOptions = {}) {
    this.minBuckets = Math.max(1, options.minBuckets ?? 2);
    this.maxBuckets = Math.max(this.minBuckets, options.maxBuckets ?? 2 ** 22);
  }

  onArrival(size: number, buckets: number): number {
    return size > 2 * buckets && buckets < this.maxBuckets ? Math.min(this.maxBuckets, buckets * 2) : 0;
  }

  onDeparture(size: number, buckets: number): number {
    return size < buckets / 2 && buckets > this.minBuckets ? Math.max(this.minBuckets, Math.floor(buckets / 2)) : 0;
  }

  reset(): void {
    // Stateless.
  }
}
