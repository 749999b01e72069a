/**
 * Fixed-bucket latency histograms: the form durations and lateness take in the statistics
 * rollups (issue 13 item 2), so percentiles over any window are a merge of stored buckets
 * instead of a sort of every run.
 *
 * Bucket 0 holds values ≤ 0 ms. Bucket i ≥ 1 holds (upper(i − 1), upper(i)] with
 * upper(i) = ⌈1.25^i⌉ ms, so every bucket above 4 ms spans at most 25 % of its own upper bound;
 * the last bucket (i = LAST_BUCKET, upper ≈ 27 days) takes everything above. A percentile is
 * reported as the upper bound of the bucket that holds it: never below the true value, and at
 * most 25 % (or 1 ms) above it.
 */

const RATIO = 1.25;
/** The last bucket; ⌈1.25^115⌉ ms ≈ 27 days, beyond any timeout. */
export const LAST_BUCKET = 115;
/** The stated error of a percentile read from a histogram: at most this fraction above the true value (or 1 ms). */
export const PERCENTILE_ERROR = RATIO - 1;

const UPPER: readonly number[] = Array.from({ length: LAST_BUCKET + 1 }, (_, i) => (i === 0 ? 0 : Math.ceil(RATIO ** i)));

/** Sparse counts by bucket index. */
export type Histogram = Map<number, number>;

/** The upper bound (ms) of bucket `i`: what a percentile falling into it is reported as. */
export function bucketUpper(i: number): number {
  return UPPER[i];
}

/** The bucket a value (ms) falls into. */
export function bucketOf(ms: number): number {
  if (!(ms > 0)) return 0;
  let lo = 1;
  let hi = LAST_BUCKET;
  // The first bucket whose upper bound is ≥ ms.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (UPPER[mid] >= ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function record(hist: Histogram, ms: number, times = 1): void {
  const i = bucketOf(ms);
  hist.set(i, (hist.get(i) ?? 0) + times);
}

export function mergeInto(target: Histogram, source: Histogram): void {
  for (const [i, n] of source) target.set(i, (target.get(i) ?? 0) + n);
}

export function histogramCount(hist: Histogram): number {
  let n = 0;
  for (const c of hist.values()) n += c;
  return n;
}

/**
 * Nearest-rank percentile estimate: the upper bound of the bucket holding the ⌈p % × n⌉-th
 * smallest value. Null for an empty histogram.
 */
export function estimatePercentile(hist: Histogram, p: number): number | null {
  const total = histogramCount(hist);
  if (total === 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
  let seen = 0;
  for (const i of [...hist.keys()].sort((a, b) => a - b)) {
    seen += hist.get(i)!;
    if (seen >= rank) return UPPER[i];
  }
  return UPPER[LAST_BUCKET];
}

/** `"i:n,i:n"`, ascending bucket index; the empty histogram is `""`. */
export function encodeHistogram(hist: Histogram): string {
  return [...hist.entries()]
    .filter(([, n]) => n > 0)
    .sort((a, b) => a[0] - b[0])
    .map(([i, n]) => `${i}:${n}`)
    .join(',');
}

/** The inverse of encodeHistogram; throws on text it did not write. */
export function decodeHistogram(text: string): Histogram {
  const hist: Histogram = new Map();
  if (text === '') return hist;
  for (const part of text.split(',')) {
    const [i, n] = part.split(':').map(Number);
    if (!Number.isInteger(i) || i < 0 || i > LAST_BUCKET || !Number.isInteger(n) || n < 0) throw new Error(`not a histogram: "${text.slice(0, 80)}"`);
    hist.set(i, (hist.get(i) ?? 0) + n);
  }
  return hist;
}
