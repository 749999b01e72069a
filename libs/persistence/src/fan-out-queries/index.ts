export { insertShardRuns } from './insert-shard-runs';
export type { FanOutParent } from './insert-shard-runs';
export { startFanOutRun } from './start-fan-out-run';
export { readSettledFanOut } from './read-settled-fan-out';
export type { SettledFanOut } from './read-settled-fan-out';
export { cancelShards } from './cancel-shards';
export type { CancelledShard } from './cancel-shards';
