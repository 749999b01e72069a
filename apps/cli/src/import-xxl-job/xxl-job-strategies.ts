import type { ConcurrencyPolicy, FanOut, MisfirePolicy } from '@baton/domain';
import type { RoutingKind } from '@baton/scheduling';

/** A Baton setting for an XXL-JOB strategy, and where Baton's behaviour differs (null: it does what XXL-JOB does). */
export interface Mapped<T> {
  value: T;
  difference: string | null;
}

/**
 * misfire_strategy: the admin counts a fire later than 5 s (its PRE_READ_MS, Baton's default
 * misfireThresholdMs) as missed, then runs the job once (FIRE_ONCE_NOW) or not (DO_NOTHING), and
 * goes on from the next fire time after now. A name XXL-JOB does not know reads as DO_NOTHING
 * there (MisfireStrategyEnum.match's default).
 */
export function misfirePolicyOf(strategy: string): Mapped<MisfirePolicy> {
  if (strategy === 'FIRE_ONCE_NOW') return { value: 'FIRE_ONCE_NOW', difference: null };
  if (strategy === 'DO_NOTHING') return { value: 'SKIP', difference: null };
  return { value: 'SKIP', difference: `misfire strategy "${strategy}" is unknown; XXL-JOB reads it as DO_NOTHING (SKIP)` };
}

/**
 * executor_block_strategy, which the executor applies to a fire that arrives while its job
 * thread still runs the job: SERIAL_EXECUTION queues it behind the running one, DISCARD_LATER
 * refuses it (a failed log), COVER_EARLY kills the running one and starts the new. Baton decides
 * before it sends (concurrencyPolicy) and across all the app's executors, not per executor.
 * Empty or unknown: the executor queues (SERIAL_EXECUTION).
 */
export function concurrencyPolicyOf(strategy: string | null): Mapped<ConcurrencyPolicy> {
  switch (strategy) {
    case 'DISCARD_LATER':
      return { value: 'FORBID', difference: null };
    case 'COVER_EARLY':
      return { value: 'REPLACE', difference: null };
    default:
      return { value: 'FORBID', difference: `block ${strategy || 'SERIAL_EXECUTION (executor_block_strategy NULL or empty)'}: Baton (FORBID) skips a fire while one runs; XXL-JOB queues it` };
  }
}

/** The nearest engine-wide routing (BATON_ROUTING) for each of XXL-JOB's per-job route strategies. */
const NEAREST_ROUTING: Record<string, RoutingKind> = {
  FIRST: 'FAILOVER', // the first executor of a fixed order (Baton's: the longest registered)
  LAST: 'FAILOVER', // one executor of a fixed order
  ROUND: 'ROUND_ROBIN',
  RANDOM: 'LEAST_BUSY', // spread over the executors
  CONSISTENT_HASH: 'CONSISTENT_HASH', // the same executor for the task while it is up
  LEAST_FREQUENTLY_USED: 'LEAST_BUSY', // the executor with the fewest runs in flight
  LEAST_RECENTLY_USED: 'LEAST_BUSY',
  FAILOVER: 'FAILOVER', // the first executor that is up
  BUSYOVER: 'LEAST_BUSY', // an idle executor first
};

/**
 * executor_route_strategy: SHARDING_BROADCAST runs each fire on every executor of the group, each
 * told its index and the total — Baton's BROADCAST fan-out (ctx.shardIndex / ctx.shardTotal), or,
 * when `shards` is given, a SHARDED fan-out of that many shards spread round the executors. Every
 * other strategy picks one executor: Baton picks it by the engine's BATON_ROUTING for all tasks
 * alike (there is no per-task routing), so the task runs SINGLE and the entry names the nearest
 * BATON_ROUTING. Empty or unknown: XXL-JOB's trigger fails ("executor route strategy invalid").
 */
export function fanOutOf(strategy: string | null, shards: number | null): Mapped<Partial<FanOut> | null> | { refused: string } {
  if (strategy === 'SHARDING_BROADCAST') {
    if (shards === null) return { value: { mode: 'BROADCAST' }, difference: null };
    return { value: { mode: 'SHARDED', shards }, difference: `sharding broadcast as ${shards} shards (--sharded): XXL-JOB makes one shard per executor; a shard whose executor is gone runs on another` };
  }
  const nearest = strategy !== null && Object.hasOwn(NEAREST_ROUTING, strategy) ? NEAREST_ROUTING[strategy] : undefined;
  if (!nearest) return { refused: `${!strategy ? 'its route strategy is missing (executor_route_strategy NULL or empty)' : `route strategy "${strategy}" is not one XXL-JOB defines`}: XXL-JOB's trigger fails on it` };
  return { value: null, difference: `route ${strategy}: Baton routes by the engine's BATON_ROUTING; nearest ${nearest}` };
}
