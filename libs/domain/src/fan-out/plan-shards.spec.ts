import { describe, expect, it } from 'vitest';
import { MAX_SHARDS } from '../task/validate-task';
import { planShards } from './plan-shards';

describe('planShards', () => {
  it('broadcast: one shard per UP executor, pinned, by executor id', () => {
    expect(planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [9, 3, 9, 5])).toEqual({
      shards: [
        { index: 0, total: 3, pinnedExecutorId: 3, preferredExecutorId: 3 },
        { index: 1, total: 3, pinnedExecutorId: 5, preferredExecutorId: 5 },
        { index: 2, total: 3, pinnedExecutorId: 9, preferredExecutorId: 9 },
      ],
      leftOut: [],
    });
  });

  it('broadcast over more executors than the shard cap: the lowest ids get a shard, the rest are left out', () => {
    // 1,050 executors, as in issue 20, given in reverse order: the choice must not depend on it.
    const ids = Array.from({ length: 1050 }, (_, i) => 2000 - i);
    const { shards, leftOut } = planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, ids);
    expect(shards).toHaveLength(MAX_SHARDS);
    expect(shards.every((s) => s.total === MAX_SHARDS)).toBe(true);
    expect(shards[0]).toEqual({ index: 0, total: MAX_SHARDS, pinnedExecutorId: 951, preferredExecutorId: 951 });
    expect(shards[MAX_SHARDS - 1].pinnedExecutorId).toBe(1950);
    expect(leftOut).toEqual(Array.from({ length: 50 }, (_, i) => 1951 + i));
  });

  it('broadcast over exactly the cap leaves nobody out', () => {
    const { shards, leftOut } = planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, Array.from({ length: MAX_SHARDS }, (_, i) => i + 1));
    expect([shards.length, leftOut]).toEqual([MAX_SHARDS, []]);
  });

  it('sharded: N shards round the executors, none pinned', () => {
    const { shards, leftOut } = planShards({ mode: 'SHARDED', shards: 5, failWhen: 'ANY_SHARD_FAILS' }, [7, 2]);
    expect(shards.map((s) => [s.index, s.total, s.pinnedExecutorId, s.preferredExecutorId])).toEqual([
      [0, 5, null, 2],
      [1, 5, null, 7],
      [2, 5, null, 2],
      [3, 5, null, 7],
      [4, 5, null, 2],
    ]);
    expect(leftOut).toEqual([]);
  });

  it('sharded over more executors than shards leaves some idle', () => {
    expect(planShards({ mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' }, [1, 2, 3]).shards.map((s) => s.preferredExecutorId)).toEqual([1, 2]);
  });

  it('no UP executor, or a SINGLE task: no shards', () => {
    const none = { shards: [], leftOut: [] };
    expect(planShards({ mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [])).toEqual(none);
    expect(planShards({ mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' }, [])).toEqual(none);
    expect(planShards({ mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' }, [1, 2])).toEqual(none);
  });
});
