import { ConsistentHashStrategy, type ConsistentHashOptions } from './consistent-hash';
import { FailoverStrategy, type FailoverOptions } from './failover';
import { LeastBusyStrategy } from './least-busy';
import { RoundRobinStrategy } from './round-robin';
import type { RoutingKind, RoutingStrategy } from './types';

export type RoutingOptions = ConsistentHashOptions & FailoverOptions;

/** The strategy for a kind (as stored on a task or executor app). Strategies are stateful: one per executor app. */
export function createRoutingStrategy(kind: RoutingKind, options: RoutingOptions = {}): RoutingStrategy {
  switch (kind) {
    case 'ROUND_ROBIN':
      return new RoundRobinStrategy();
    case 'LEAST_BUSY':
      return new LeastBusyStrategy();
    case 'CONSISTENT_HASH':
      return new ConsistentHashStrategy(options);
    case 'FAILOVER':
      return new FailoverStrategy(options);
    default: {
      const never: never = kind;
      throw new RangeError(`unknown routing kind ${String(never)}`);
    }
  }
}
