export { insertShardRuns } from './insert-shard-runs';
export type { FanOutParent } from './insert-shard-runs';
export { startFanOutRun } from './start-fan-out-run';
export { findSettleableFanOuts, findSettleableFanOutsSql, standOfFanOut } from './stand-of-fan-out';
export type { FanOutStand } from './stand-of-fan-out';
export { cancelShards } from './cancel-shards';
export type { CancelledShard } from './cancel-shards';
