export interface BucketWidthSample {
  /** Event records; the time of event i is times[i * stride]. */
  times: Float64Array;
  /** Numbers per event record in `times`. */
  stride: number;
  /** How many events to sample from. */
  count: number;
  /** Distinct times nearest the head to measure (Brown used 25 events). */
  sampleSize: number;
  /** Width = factor × mean separation (Brown: 3). */
  factor: number;
  /** Width to keep when fewer than two distinct times exist. */
  fallback: number;
  /** Narrowest width allowed. */
  minWidth: number;
}

/**
 * Brown's bucket width: a multiple (Brown: three) of the average separation of the events at
 * the head of the queue, after dropping separations above twice the average
 * (so one far outlier cannot stretch the days).
 *
 * Two changes from Brown, both for bursts:
 * - it measures separations between *distinct* times. Events due at the same
 *   millisecond share a bucket whatever the width, so their zero gaps say
 *   nothing about how long a day should be — and a burst of thousands at one
 *   instant would otherwise drive the width to zero.
 * - it finds the head by selecting the smallest distinct times in one O(n)
 *   pass over the events being re-placed (the rebuild is O(n) anyway), instead
 *   of dequeuing and re-enqueuing a sample.
 */
export function sampleBucketWidth(s: BucketWidthSample): number {
  const k = Math.max(2, s.sampleSize + 1);
  const head = new Float64Array(k); // ascending distinct times, the k smallest seen so far
  let filled = 0;
  const { times, stride } = s;
  for (let i = 0; i < s.count; i++) {
    const t = times[i * stride];
    if (filled === k && t >= head[k - 1]) continue; // the usual case: O(1) reject
    let j = filled;
    while (j > 0 && head[j - 1] > t) j--;
    if (j > 0 && head[j - 1] === t) continue;
    const end = filled === k ? k - 1 : filled;
    for (let m = end; m > j; m--) head[m] = head[m - 1];
    head[j] = t;
    if (filled < k) filled++;
  }
  if (filled < 2) return s.fallback;
  const gaps = filled - 1;
  const mean = (head[filled - 1] - head[0]) / gaps;
  let sum = 0;
  let used = 0;
  for (let i = 1; i < filled; i++) {
    const g = head[i] - head[i - 1];
    if (g <= 2 * mean) {
      sum += g;
      used++;
    }
  }
  const width = s.factor * (used > 0 ? sum / used : mean);
  return Math.max(s.minWidth, width);
}
