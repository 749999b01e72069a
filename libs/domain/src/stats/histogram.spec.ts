import { describe, expect, it } from 'vitest';
import { bucketOf, bucketUpper, decodeHistogram, encodeHistogram, estimatePercentile, LAST_BUCKET, PERCENTILE_ERROR, record, type Histogram } from './histogram';

function exactPercentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

describe('latency histogram', () => {
  it('puts values ≤ 0 in bucket 0 and every positive value in the first bucket whose upper bound holds it', () => {
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(0)).toBe(0);
    for (const v of [0.5, 1, 2, 3, 7, 99, 100, 101, 12_345, 3_600_000]) {
      const i = bucketOf(v);
      expect(bucketUpper(i)).toBeGreaterThanOrEqual(v);
      expect(i === 1 || bucketUpper(i - 1) < v).toBe(true);
    }
    expect(bucketOf(Number.MAX_SAFE_INTEGER)).toBe(LAST_BUCKET);
  });

  it('estimates a percentile at or above the true one and at most 25 % (or 1 ms) above it', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const shape of [(r: number) => r * 50, (r: number) => Math.exp(r * 12), (r: number) => (r < 0.9 ? 3 : 40_000 * r)]) {
      const values = Array.from({ length: 5_000 }, () => Math.round(shape(random())));
      const hist: Histogram = new Map();
      for (const v of values) record(hist, v);
      const sorted = [...values].sort((a, b) => a - b);
      for (const p of [1, 50, 90, 95, 99, 100]) {
        const exact = exactPercentile(sorted, p);
        const est = estimatePercentile(hist, p)!;
        expect(est).toBeGreaterThanOrEqual(exact);
        expect(est).toBeLessThanOrEqual(Math.max(exact * (1 + PERCENTILE_ERROR), exact + 1));
      }
    }
  });

  it('has no percentile when empty', () => {
    expect(estimatePercentile(new Map(), 50)).toBeNull();
  });

  it('round-trips through its text form, and refuses text it did not write', () => {
    const hist: Histogram = new Map([[3, 2], [0, 7], [LAST_BUCKET, 1]]);
    expect(encodeHistogram(hist)).toBe(`0:7,3:2,${LAST_BUCKET}:1`);
    expect(decodeHistogram(encodeHistogram(hist))).toEqual(new Map([[0, 7], [3, 2], [LAST_BUCKET, 1]]));
    expect(decodeHistogram('')).toEqual(new Map());
    expect(() => decodeHistogram('x')).toThrow(/not a histogram/);
    expect(() => decodeHistogram(`${LAST_BUCKET + 1}:1`)).toThrow(/not a histogram/);
  });
});
