import { upOnly, type ExecutorCandidate, type RoutingStrategy } from './types';

export interface FailoverOptions {
  /**
   * Executor ids in order of preference. Candidates not listed follow, in the
   * order given. Default: the order of the candidate list itself.
   */
  preference?: readonly string[];
}

/**
 * Always the first UP executor of a fixed order (a primary and its standbys):
 * all work goes to one place until it is DOWN, then to the next.
 */
export class FailoverStrategy implements RoutingStrategy {
  readonly kind = 'FAILOVER';
  private readonly rankOf: Map<string, number>;

  constructor(options: FailoverOptions = {}) {
    this.rankOf = new Map((options.preference ?? []).map((id, i) => [id, i]));
  }

  order<C extends ExecutorCandidate>(candidates: readonly C[]): C[] {
    const up = upOnly(candidates);
    const rank = (c: C) => this.rankOf.get(c.id) ?? Infinity;
    // Array.prototype.sort is stable: unlisted candidates keep their given order.
    return up.sort((a, b) => (rank(a) === rank(b) ? 0 : rank(a) < rank(b) ? -1 : 1));
  }
}
