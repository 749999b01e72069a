import { describe, expect, it } from 'vitest';
import type { RunState } from '../types';
import { fanOutOutcome, type ShardEnd } from './fan-out-outcome';

const shard = (index: number, state: RunState, extra: Partial<ShardEnd> = {}): ShardEnd => ({ index, state, executorId: 10 + index, error: null, resultJson: null, ...extra });

describe('fanOutOutcome', () => {
  it('every shard succeeded: SUCCEEDED under either rule, results by index', () => {
    const shards = [shard(1, 'SUCCEEDED', { resultJson: '{"n":2}' }), shard(0, 'SUCCEEDED', { resultJson: '{"n":1}' })];
    for (const rule of ['ANY_SHARD_FAILS', 'ALL_SHARDS_FAIL'] as const) {
      const out = fanOutOutcome(rule, shards);
      expect(out.state).toBe('SUCCEEDED');
      expect(out.error).toBeNull();
      expect(JSON.parse(out.resultJson)).toEqual({
        shards: [
          { index: 0, state: 'SUCCEEDED', executorId: 10, result: { n: 1 } },
          { index: 1, state: 'SUCCEEDED', executorId: 11, result: { n: 2 } },
        ],
      });
    }
  });

  it('ANY_SHARD_FAILS: one failed, timed-out or cancelled shard fails the run, naming it', () => {
    for (const bad of ['FAILED', 'TIMED_OUT', 'CANCELLED'] as const) {
      const out = fanOutOutcome('ANY_SHARD_FAILS', [shard(0, 'SUCCEEDED'), shard(1, bad, { error: 'disk full\n    at x.js:1' }), shard(2, 'SUCCEEDED')]);
      expect(out.state).toBe('FAILED');
      expect(out.error).toBe(`1 of 3 shards did not succeed — shard 1 ${bad}: disk full`);
    }
  });

  it('ALL_SHARDS_FAIL: succeeds while one shard succeeded, fails when none did', () => {
    expect(fanOutOutcome('ALL_SHARDS_FAIL', [shard(0, 'FAILED', { error: 'x' }), shard(1, 'SUCCEEDED')]).state).toBe('SUCCEEDED');
    const none = fanOutOutcome('ALL_SHARDS_FAIL', [shard(0, 'FAILED', { error: 'x' }), shard(1, 'TIMED_OUT')]);
    expect(none.state).toBe('FAILED');
    expect(none.error).toBe('2 of 2 shards did not succeed (none succeeded) — shard 0 FAILED: x; shard 1 TIMED_OUT');
  });

  it('names five failed shards and counts the rest', () => {
    const out = fanOutOutcome('ANY_SHARD_FAILS', Array.from({ length: 8 }, (_, i) => shard(i, 'FAILED', { error: `e${i}` })));
    expect(out.error).toBe('8 of 8 shards did not succeed — shard 0 FAILED: e0; shard 1 FAILED: e1; shard 2 FAILED: e2; shard 3 FAILED: e3; shard 4 FAILED: e4; and 3 more');
  });

  it('no shard left is a failure', () => {
    expect(fanOutOutcome('ALL_SHARDS_FAIL', [])).toEqual({ state: 'FAILED', error: 'no shard of this run is left to report on', resultJson: '{"shards":[]}' });
  });

  it('bounds the results: the largest are truncated first, each shard still listed', () => {
    const big = JSON.stringify('x'.repeat(600));
    const out = fanOutOutcome('ANY_SHARD_FAILS', [shard(0, 'SUCCEEDED', { resultJson: big }), shard(1, 'SUCCEEDED', { resultJson: '"small"' })], 400);
    expect(Buffer.byteLength(out.resultJson)).toBeLessThanOrEqual(400);
    expect(JSON.parse(out.resultJson).shards).toEqual([
      { index: 0, state: 'SUCCEEDED', executorId: 10, result: { truncated: true, bytes: 602 } },
      { index: 1, state: 'SUCCEEDED', executorId: 11, result: 'small' },
    ]);
  });

  it('a thousand shards stay within the bound: results truncated, then successful entries left out from the end and counted; failures kept', () => {
    const shards = Array.from({ length: 1000 }, (_, i) => shard(i, i === 998 ? 'FAILED' : 'SUCCEEDED', { resultJson: `{"items":${i},"pad":"${'p'.repeat(40)}"}`, error: i === 998 ? 'x' : null }));
    const out = fanOutOutcome('ANY_SHARD_FAILS', shards, 64_000);
    expect(Buffer.byteLength(out.resultJson)).toBeLessThanOrEqual(64_000);
    const parsed = JSON.parse(out.resultJson) as { shards: Array<{ index: number; state: string }>; omitted: number };
    expect(parsed.shards.length + parsed.omitted).toBe(1000);
    expect(parsed.omitted).toBeGreaterThan(0);
    expect(parsed.shards[0].index).toBe(0);
    expect(parsed.shards.some((s) => s.index === 998 && s.state === 'FAILED')).toBe(true);
    expect(out.error).toBe('1 of 1000 shards did not succeed — shard 998 FAILED: x');
  });
});
