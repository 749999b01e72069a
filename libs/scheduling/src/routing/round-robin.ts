import { upOnly, type ExecutorCandidate, type RoutingStrategy } from './types';

/**
 * Each call starts one step further along the UP list and wraps around, so
 * successive runs spread evenly; the rest of the rotation is the fallback
 * order. The cursor counts calls, so an executor going DOWN shifts the
 * rotation but never stalls it.
 */
export class RoundRobinStrategy implements RoutingStrategy {
  readonly kind = 'ROUND_ROBIN';
  private cursor = 0;

  order<C extends ExecutorCandidate>(candidates: readonly C[]): C[] {
    const up = upOnly(candidates);
    if (up.length === 0) return up;
    const start = this.cursor % up.length;
    this.cursor = (this.cursor + 1) % 0x7fffffff;
    return [...up.slice(start), ...up.slice(0, start)];
  }
}
