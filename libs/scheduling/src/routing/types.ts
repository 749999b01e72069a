/** Same values as the domain's ExecutorState; kept local so this lib depends on nothing. */
export type CandidateState = 'UP' | 'DOWN';

/** An executor the dispatcher may send a run to. */
export interface ExecutorCandidate {
  readonly id: string;
  readonly state: CandidateState;
  /** Runs it accepts at once (its pool size). <= 0 counts as always full. */
  readonly capacity: number;
  /** Runs sent to it and not yet finished. */
  readonly inFlight: number;
}

export interface RoutingContext {
  /** Stable key of the work (task id, or a business key): what consistent hashing maps. */
  readonly key?: string;
}

export const ROUTING_KINDS = ['ROUND_ROBIN', 'LEAST_BUSY', 'CONSISTENT_HASH', 'FAILOVER'] as const;
export type RoutingKind = (typeof ROUTING_KINDS)[number];

/**
 * Orders the candidates to try for one dispatch. Every strategy drops DOWN
 * executors and returns the UP ones, best first, so the dispatcher moves to
 * the next on a 429 or 5xx without asking again. Pure apart from the
 * strategy's own cursor (round robin, tie rotation).
 */
export interface RoutingStrategy {
  readonly kind: RoutingKind;
  order<C extends ExecutorCandidate>(candidates: readonly C[], context?: RoutingContext): C[];
}

export function upOnly<C extends ExecutorCandidate>(candidates: readonly C[]): C[] {
  return candidates.filter((c) => c.state === 'UP');
}
