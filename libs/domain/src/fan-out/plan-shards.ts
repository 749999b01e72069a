import { MAX_SHARDS } from '../task/validate-task';
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

/** The shards to write, and the UP executors a BROADCAST leaves out. */
export interface FanOutPlan {
  shards: ShardPlan[];
  /** BROADCAST over more than MAX_SHARDS UP executors: those past the cap (by id), which get no shard. Otherwise empty. */
  leftOut: number[];
}

/**
 * The shards of one fan-out run, given the UP executors of its app when it starts (any order,
 * duplicates ignored). BROADCAST: one per executor, pinned to it — a broadcast is "everybody who
 * is up now", so an executor that comes up later is not waited for — up to MAX_SHARDS, the cap
 * SHARDED has: past it, the executors with the lowest ids get one (a stable choice, so a retry
 * plans the same) and the rest are left out, which the caller says in its log. SHARDED:
 * `fanOut.shards` shards, shard i preferring the i-th executor round the list (by id, so a retry
 * of the same fan-out would plan the same). No executor: no shards — the caller defers the run as
 * it would any run nobody can take.
 */
export function planShards(fanOut: FanOut, upExecutorIds: readonly number[]): FanOutPlan {
  const executors = [...new Set(upExecutorIds)].sort((a, b) => a - b);
  if (executors.length === 0 || fanOut.mode === 'SINGLE') return { shards: [], leftOut: [] };
  if (fanOut.mode === 'BROADCAST') {
    const chosen = executors.slice(0, MAX_SHARDS);
    return {
      shards: chosen.map((id, index) => ({ index, total: chosen.length, pinnedExecutorId: id, preferredExecutorId: id })),
      leftOut: executors.slice(MAX_SHARDS),
    };
  }
  const total = fanOut.shards ?? 1;
  return {
    shards: Array.from({ length: total }, (_, index) => ({ index, total, pinnedExecutorId: null, preferredExecutorId: executors[index % executors.length] })),
    leftOut: [],
  };
}
