import { describe, expect, it } from 'vitest';
import { sampleBucketWidth } from './bucket-width';

function width(times: number[], factor = 3, fallback = 7): number {
  return sampleBucketWidth({
    times: Float64Array.from(times),
    stride: 1,
    count: times.length,
    sampleSize: 25,
    factor,
    fallback,
    minWidth: 1,
  });
}

const shuffle = (xs: number[]) => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

describe('sampleBucketWidth (Brown, over distinct times)', () => {
  it('is factor × the mean separation at the head, in any input order', () => {
    const evenly = Array.from({ length: 100 }, (_, i) => 1000 + 10 * i);
    expect(width(shuffle(evenly))).toBe(30);
    expect(width(shuffle(evenly), 1)).toBe(10);
  });

  it('looks only at the head: later, sparser events do not widen the days', () => {
    const dense = Array.from({ length: 30 }, (_, i) => 10 * i);
    const sparse = Array.from({ length: 1000 }, (_, i) => 1e6 + 1e4 * i);
    expect(width(shuffle([...sparse, ...dense]))).toBe(30);
  });

  it('ignores equal times: a burst at one instant does not collapse the width', () => {
    const burst = Array.from({ length: 5000 }, () => 500);
    const rest = Array.from({ length: 30 }, (_, i) => 500 + 20 * (i + 1));
    expect(width(shuffle([...burst, ...rest]))).toBe(60);
  });

  it('drops separations above twice the mean (an outlier does not stretch the days)', () => {
    const head = Array.from({ length: 25 }, (_, i) => 10 * i); // 24 gaps of 10
    expect(width([...head, 1e9])).toBe(30);
  });

  it('keeps the fallback with fewer than two distinct times, and respects the minimum', () => {
    expect(width([])).toBe(7);
    expect(width([5, 5, 5])).toBe(7);
    expect(width([0, 0.1, 0.2, 0.3])).toBe(1);
  });
});
