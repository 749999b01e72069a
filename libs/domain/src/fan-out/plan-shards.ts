import type { FanOut } from '../types';

/** One shard to write when a fan-out run starts. */
export interface ShardPlan {
  /** 0-based; the handler's `ctx.shardIndex`. */
  index: number;
  /** The handler's `ctx.shardTotal`. */
  total: number;
  /** BROADCAST: the one executor this shard may run on; null: any UP executor of the app. */
  pinnedExecutorId: number | null;
  /** SHARDED: the executor tried first, so the shards spread evenly; others take over when it is gone. */
  preferredExecutorId: number | null;
}

/**
 * The shards of one fan-out run, given the UP executors of its app when it starts (any order,
 * duplicates ignored). BROADCAST: one per executor, pinned to it — a broadcast is "everybody who
 * is up now", so an executor that comes up later is not waited for. SHARDED: `fanOut.shards`
 * shards, shard i preferring the i-th executor round the list (by id, so a retry of the same
 * fan-out would plan the same). No executor: no shards — the caller defers the run as it would
 * any run nobody can take.
 */
export function planShards(fanOut: FanOut, upExecutorIds: readonly number[]): ShardPlan[] {
  const executors = [...new Set(upExecutorIds)].sort((a, b) => a - b);
  if (executors.length === 0 || fanOut.mode === 'SINGLE') return [];
  if (fanOut.mode === 'BROADCAST') {
    return executors.map((id, index) => ({ index, total: executors.length, pinnedExecutorId: id, preferredExecutorId: id }));
  }
  const total = fanOut.shards ?? 1;
  return Array.from({ length: total }, (_, index) => ({ index, total, pinnedExecutorId: null, preferredExecutorId: executors[index % executors.length] }));
}
