import { upOnly, type ExecutorCandidate, type RoutingStrategy } from './types';

/** inFlight / capacity; a candidate without capacity sorts last. */
export function load(c: ExecutorCandidate): number {
  return c.capacity > 0 ? c.inFlight / c.capacity : Infinity;
}

/**
 * Lowest load (inFlight / capacity) first, so a big executor takes
 * proportionally more. Saturated executors (load >= 1) stay in the list, last:
 * one may have freed a slot by the time the dispatcher gets there. The group
 * tied for least busy is rotated call by call: otherwise a burst dispatched
 * before any inFlight update would all go to the first of several idle executors.
 */
export class LeastBusyStrategy implements RoutingStrategy {
  readonly kind = 'LEAST_BUSY';
  private rotation = 0;

  order<C extends ExecutorCandidate>(candidates: readonly C[]): C[] {
    // Array.prototype.sort is stable: ties keep the given order before the rotation.
    const sorted = upOnly(candidates).sort((a, b) => load(a) - load(b) || a.inFlight - b.inFlight);
    if (sorted.length === 0) return sorted;
    let tied = 1;
    while (tied < sorted.length && load(sorted[tied]) === load(sorted[0]) && sorted[tied].inFlight === sorted[0].inFlight) tied++;
    const shift = this.rotation % tied;
    this.rotation = (this.rotation + 1) % 0x7fffffff;
    return [...sorted.slice(shift, tied), ...sorted.slice(0, shift), ...sorted.slice(tied)];
  }
}
