/**
 * Arrival distributions for the queue benchmark, seeded so every structure
 * sees exactly the same events.
 */

/** mulberry32: tiny seedable PRNG; Math.random would make runs incomparable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type DistributionName = 'uniform' | 'bursty';

/** The engine's look-ahead: runs are claimed up to about a minute before they are due. */
const WINDOW_MS = 60_000;
/** Bursty runs are due on whole seconds (cron-like), so thousands share a millisecond. */
const BURST_GRID_MS = 1000;
const DAY_MS = 86_400_000;

/**
 * Random draws for `count` events, made before the clock starts, so the timed
 * loops measure the queues rather than the random number generator.
 */
export class Workload {
  private readonly kind: Uint8Array;
  private readonly delay: Float64Array;
  readonly priorities: Int8Array;

  constructor(
    readonly name: DistributionName,
    seed: number,
    count: number,
  ) {
    const r = rng(seed);
    this.kind = new Uint8Array(count);
    this.delay = new Float64Array(count);
    this.priorities = new Int8Array(count);
    for (let i = 0; i < count; i++) {
      const u = r();
      // bursty: 90% on the next whole second after a uniform delay (a burst
      // instant), 0.1% far-future outliers (planned days ahead), rest uniform.
      this.kind[i] = name === 'uniform' ? 0 : u < 0.9 ? 1 : u > 0.999 ? 2 : 0;
      this.delay[i] = r();
      this.priorities[i] = r() < 0.9 ? 0 : Math.floor(r() * 11) - 5;
    }
  }

  /** Due time (whole ms) of event i created at `now`. */
  time(now: number, i: number): number {
    const d = this.delay[i];
    switch (this.kind[i]) {
      case 1:
        return Math.ceil((now + d * WINDOW_MS) / BURST_GRID_MS) * BURST_GRID_MS;
      case 2:
        return now + DAY_MS + Math.floor(d * 29 * DAY_MS);
      default:
        return now + Math.floor(d * WINDOW_MS);
    }
  }
}
