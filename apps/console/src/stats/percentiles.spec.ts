import { describe, expect, it } from 'vitest';
import { distribution, percentile } from './percentiles';

describe('percentile (nearest rank)', () => {
  it('is null for no values', () => {
    expect(percentile([], 50)).toBeNull();
    expect(distribution([])).toEqual({ count: 0, p50: null, p95: null });
  });

  it('picks the nearest-rank value', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2], 50)).toBe(1);
  });

  it('sorts before picking', () => {
    expect(distribution([30, 10, 20])).toEqual({ count: 3, p50: 20, p95: 30 });
  });
});
