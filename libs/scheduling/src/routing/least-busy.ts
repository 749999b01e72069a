import { upOnly, type ExecutorCandidate, type RoutingStrategy } from './types';

/** inFlight / capacity; a candidate without capacity sorts last. */
export function load(c: ExecutorCandidate): number {
  return c.capacity > 0 ? c.inFlight / c.capacity : Infinity;
}

/**
 * Lowest load (inFlight / capacity) first, so a big executor takes
 * proportionally more. Saturated executors (load >= 1) stay in the list, last:
 * one may have freed a slot by the time the dispatcher gets there. Equal loads
 * are rotated call by call: otherwise a burst arriving before any inFlight
 * update would all go to the first of several idle executors.
 */
export class LeastBusyStrategy implements RoutingStrategy {
  readonly kind = 'LEAST_BUSY';
  private rotation = 0;

  order<C extends ExecutorCandidate>(candidates: readonly C[]): C[] {
    const up = upOnly(candidates);
    const n = up.length;
    if (n === 0) return up;
    const shift = this.rotation % n;
    this.rotation = (this.rotation + 1) % 0x7fffffff;
    const rank = (i: number) => (i - shift + n) % n;
    const idx = up.map((_, i) => i);
    idx.sort((a, b) => load(up[a]) - load(up[b]) || up[a].inFlight - up[b].inFlight || rank(a) - rank(b));
    return idx.map((i) => up[i]);
  }
}
