import { describe, expect, it } from 'vitest';
import { jsonDeeperThan, jsonDepthReason, MAX_JSON_DEPTH } from './json-depth';
import { MAX_JSON_DEPTH as PARAMS_DEPTH } from '@baton/domain';

function nested(levels: number): unknown {
  return JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
}

describe('jsonDeeperThan', () => {
  it('accepts scalars and bodies up to the limit', () => {
    expect(jsonDeeperThan(1)).toBe(false);
    expect(jsonDeeperThan(null)).toBe(false);
    expect(jsonDeeperThan({})).toBe(false);
    expect(jsonDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDeeperThan([[1, [2]], { a: [3] }], 3)).toBe(false);
  });

  it('refuses one level more, through objects and arrays alike', () => {
    expect(jsonDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDeeperThan({ a: [1, { b: [2] }] }, 3)).toBe(true);
    expect(jsonDeeperThan([{ ok: 1 }, [[[]]]], 3)).toBe(true);
  });

  it('walks 10 000 levels without overflowing the stack', () => {
    expect(jsonDeeperThan(nested(10_000))).toBe(true);
  });

  it('names the limit in its reason', () => {
    expect(jsonDepthReason()).toBe('JSON nested deeper than 32 levels');
  });
});

describe('MAX_JSON_DEPTH', () => {
  it('is the domain’s bound for a run’s params (this package is packed without the domain, so it keeps its own copy)', () => {
    expect(MAX_JSON_DEPTH).toBe(PARAMS_DEPTH);
  });
});
