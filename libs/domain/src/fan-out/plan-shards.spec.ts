import { describe, expect, it } from 'vitest';
import { planShards } from './plan-shards';

describe('planShards', () => {
  it('broadcast: one shard per UP executor, pinned, by executor id', () => {
    expect(planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [9, 3, 9, 5])).toEqual([
      { index: 0, total: 3, pinnedExecutorId: 3, preferredExecutorId: 3 },
      { index: 1, total: 3, pinnedExecutorId: 5, preferredExecutorId: 5 },
      { index: 2, total: 3, pinnedExecutorId: 9, preferredExecutorId: 9 },
    ]);
  });

  it('sharded: N shards round the executors, none pinned', () => {
    const plan = planShards({ mode: 'SHARDED', shards: 5, failWhen: 'ANY_SHARD_FAILS' }, [7, 2]);
    expect(plan.map((s) => [s.index, s.total, s.pinnedExecutorId, s.preferredExecutorId])).toEqual([
      [0, 5, null, 2],
      [1, 5, null, 7],
      [2, 5, null, 2],
      [3, 5, null, 7],
      [4, 5, null, 2],
    ]);
  });

  it('sharded over more executors than shards leaves some idle', () => {
    expect(planShards({ mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' }, [1, 2, 3]).map((s) => s.preferredExecutorId)).toEqual([1, 2]);
  });

  it('no UP executor, or a SINGLE task: no shards', () => {
    expect(planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [])).toEqual([]);
    expect(planShards({ mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' }, [])).toEqual([]);
    expect(planShards({ mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [1, 2])).toEqual([]);
  });
});
