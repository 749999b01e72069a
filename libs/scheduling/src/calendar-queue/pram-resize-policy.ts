import { forecastQueueLength } from './mm1n';
import type { ResizePolicy } from './resize-policy';

export interface PramResizePolicyOptions {
  /**
   * Longest sliding window, in operations, over which λ (enqueues) and μ
   * (dequeues + removals) are estimated. The window used is the queue's size
   * clamped to [minWindow, window]: a queue of 20 events is described by its
   * last few dozen operations, not by what happened a thousand ago. Default 1024.
   */
  window?: number;
  /** Shortest estimation window, in operations. Default 64. */
  minWindow?: number;
  /**
   * Shortest look-ahead, in operations. The horizon is max(minHorizon, size):
   * a rebuild costs O(size), so the bucket count chosen must suit the next
   * ~size operations to pay for itself. Default 256.
   */
  minHorizon?: number;
  /** N of the M/M/1/N model: most events the queue will hold (e.g. the engine's claim cap). Default Infinity (M/M/1). */
  capacity?: number;
  /** Top of the band: consider growing when size > growAt·buckets. Default 3 (PRAM's NE > 3NB). */
  growAt?: number;
  /** Bottom of the band: consider shrinking when size < buckets/shrinkAt. Default 3 (PRAM's NE < NB/3). */
  shrinkAt?: number;
  /**
   * Events per bucket the new bucket count is sized for: NB = predicted / this.
   * Default 1, the geometric centre of the [1/3, 3] band, so the predicted size
   * has room both ways before the next trigger.
   */
  eventsPerBucket?: number;
  /** Safety valve: rebuild whatever the forecast when size > hardGrowAt·buckets (buckets get long). Default 8. */
  hardGrowAt?: number;
  /** Safety valve: rebuild whatever the forecast when size < buckets/hardShrinkAt (scans cross empty days). Default 32. */
  hardShrinkAt?: number;
  /** After a forecast said "stay", operations to wait before forecasting again (keeps the hot path O(1)). Default 64. */
  recheckEvery?: number;
  /** Fewest buckets. Default 2. */
  minBuckets?: number;
  /** Most buckets (each costs 32 bytes). Default 2^22. */
  maxBuckets?: number;
}

const ARRIVAL = 1;
const DEPARTURE = 0;

/**
 * PRAM's resize rule (Zhang et al. 2008, §2): resize from a Markov forecast of
 * the pending-set size rather than from its current size.
 *
 * - A trigger is the current size leaving the band [NB/shrinkAt, growAt·NB]
 *   (the paper's "NE > 3NB" / "NE < NB/3" in its enqueue()/dequeue()).
 * - On a trigger, λ/(λ+μ) is read off a sliding window of recent operations and
 *   the size `horizon` operations ahead is forecast with the M/M/1/N chain
 *   (mm1n.ts; the paper's formula (3), lost in the OCR).
 * - The queue rebuilds only if the forecast is outside the band too, and then
 *   for the forecast size (the paper's NB = L/3 + 0.01L step). A burst that is
 *   already draining, or a size jittering across a threshold, is left alone;
 *   a burst still arriving is sized for where it is heading, skipping the
 *   intermediate doublings.
 *
 * Time is counted in queue operations, not in wall-clock time: only the ratio
 * ρ = λ/μ and the number of transitions in the horizon enter the forecast, so
 * the policy needs no clock and is deterministic under test.
 */
export class PramResizePolicy implements ResizePolicy {
  readonly name = 'pram';
  /** Cumulative arrival count after each of the last `window` operations. */
  private readonly ring: Float64Array;
  private ringIdx = 0;
  private arrivals = 0;
  private ops = 0;
  private readonly minWindow: number;
  private nextCheck = 0;
  private deferred = 0;
  private predicted = NaN;

  private readonly minHorizon: number;
  private readonly capacity: number;
  private readonly growAt: number;
  private readonly shrinkAt: number;
  private readonly eventsPerBucket: number;
  private readonly hardGrowAt: number;
  private readonly hardShrinkAt: number;
  private readonly recheckEvery: number;
  private readonly minBuckets: number;
  private readonly maxBuckets: number;

  constructor(options: PramResizePolicyOptions = {}) {
    this.ring = new Float64Array(Math.max(8, Math.floor(options.window ?? 1024)));
    this.minWindow = Math.min(this.ring.length, Math.max(1, Math.floor(options.minWindow ?? 64)));
    this.minHorizon = Math.max(1, options.minHorizon ?? 256);
    this.capacity = options.capacity ?? Infinity;
    this.growAt = options.growAt ?? 3;
    this.shrinkAt = options.shrinkAt ?? 3;
    this.eventsPerBucket = options.eventsPerBucket ?? 1;
    this.hardGrowAt = Math.max(this.growAt, options.hardGrowAt ?? 8);
    this.hardShrinkAt = Math.max(this.shrinkAt, options.hardShrinkAt ?? 32);
    this.recheckEvery = Math.max(1, options.recheckEvery ?? 64);
    this.minBuckets = Math.max(1, options.minBuckets ?? 2);
    this.maxBuckets = Math.max(this.minBuckets, options.maxBuckets ?? 2 ** 22);
    if (!(this.growAt > 1 && this.shrinkAt > 1)) throw new RangeError('growAt and shrinkAt must be > 1');
    if (!(this.eventsPerBucket > 0)) throw new RangeError('eventsPerBucket must be > 0');
  }

  /** Forecasts that said "stay" although the size had left the band (diagnostic). */
  get deferrals(): number {
    return this.deferred;
  }

  /** The last forecast made (NaN before the first trigger). */
  get lastForecast(): number {
    return this.predicted;
  }

  /** Share of arrivals over the whole window, smoothed so an all-arrival window is not exactly 1. */
  get arrivalShare(): number {
    return this.shareOver(this.ring.length);
  }

  /** λ/(λ+μ) over the last min(k, ops seen) operations, with a half-count prior each way. */
  private shareOver(k: number): number {
    const w = this.ring.length;
    const n = Math.min(k, this.ops, w - 1);
    if (n === 0) return 0.5;
    // Operation j's running count sits at (j − 1) mod w; we need the one just before the window, j = ops − n.
    const before = this.ops > n ? this.ring[(this.ringIdx - n - 1 + w) % w] : 0;
    return (this.arrivals - before + 0.5) / (n + 1);
  }

  onArrival(size: number, buckets: number): number {
    this.record(ARRIVAL);
    return this.decide(size, buckets);
  }

  onDeparture(size: number, buckets: number): number {
    this.record(DEPARTURE);
    return this.decide(size, buckets);
  }

  reset(): void {
    this.ring.fill(0);
    this.ringIdx = this.arrivals = this.ops = this.nextCheck = this.deferred = 0;
    this.predicted = NaN;
  }

  /** Forecast of the size `max(minHorizon, size)` operations ahead. */
  forecast(size: number): number {
    return forecastQueueLength({
      size,
      arrivalShare: this.shareOver(Math.max(this.minWindow, size)),
      horizon: Math.max(this.minHorizon, size),
      capacity: this.capacity,
    });
  }

  private record(kind: number): void {
    this.arrivals += kind;
    this.ring[this.ringIdx] = this.arrivals;
    this.ringIdx = this.ringIdx + 1 === this.ring.length ? 0 : this.ringIdx + 1;
    this.ops++;
  }

  private decide(size: number, buckets: number): number {
    const above = size > this.growAt * buckets;
    const below = size * this.shrinkAt < buckets && buckets > this.minBuckets;
    if (!above && !below) return 0; // the hot path: inside the band
    const hard = above ? size > this.hardGrowAt * buckets : size * this.hardShrinkAt < buckets;
    if (!hard && this.ops < this.nextCheck) return 0;

    const predicted = this.forecast(size);
    this.predicted = predicted;
    const leaves = above ? predicted > this.growAt * buckets : predicted * this.shrinkAt < buckets;
    if (!leaves && !hard) return this.defer();

    // Sized for the forecast; through a valve, the forecast was wrong about now, so size for the worse of the two.
    const basis = hard ? (above ? Math.max(predicted, size) : Math.min(predicted, size)) : predicted;
    // Never so far off that the current size trips a valve.
    let target = Math.ceil(basis / this.eventsPerBucket);
    target = Math.max(target, Math.ceil(size / this.hardGrowAt));
    target = Math.min(target, Math.max(this.minBuckets, Math.floor(size * this.hardShrinkAt)));
    target = Math.min(this.maxBuckets, Math.max(this.minBuckets, target));
    // A trigger above may only grow, one below may only shrink.
    if (above ? target <= buckets : target >= buckets) return this.defer();
    this.nextCheck = 0;
    return target;
  }

  private defer(): number {
    this.deferred++;
    this.nextCheck = this.ops + this.recheckEvery;
    return 0;
  }
}
