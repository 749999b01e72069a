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

export interface Distribution {
  readonly name: DistributionName;
  /** Due time (whole ms) of a new event created at `now`. */
  next(now: number): number;
  /** Priority of a new event: mostly 0, some in -5..5. */
  priority(): number;
}

/** The engine's look-ahead: runs are claimed up to about a minute before they are due. */
const WINDOW_MS = 60_000;
/** Bursty runs are due on whole seconds (cron-like), so thousands share a millisecond. */
const BURST_GRID_MS = 1000;
const DAY_MS = 86_400_000;

export function distribution(name: DistributionName, seed: number): Distribution {
  const r = rng(seed);
  const priority = () => (r() < 0.9 ? 0 : Math.floor(r() * 11) - 5);
  if (name === 'uniform') {
    return { name, priority, next: (now) => now + Math.floor(r() * WINDOW_MS) };
  }
  return {
    name,
    priority,
    next(now) {
      const u = r();
      // 90%: on the next whole second after a uniform delay — a burst instant.
      if (u < 0.9) return Math.ceil((now + r() * WINDOW_MS) / BURST_GRID_MS) * BURST_GRID_MS;
      // 0.1%: far-future outliers (a run planned days ahead).
      if (u > 0.999) return now + DAY_MS + Math.floor(r() * 29 * DAY_MS);
      return now + Math.floor(r() * WINDOW_MS);
    },
  };
}
