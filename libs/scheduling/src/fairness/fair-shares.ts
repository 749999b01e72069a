/** One party to a division: its weight (its share's size relative to the others) and the most it can use. */
export interface Claimant<K> {
  key: K;
  /** Relative size of its share (a tenant's `claim_share`); > 0. */
  weight: number;
  /** The most it can use; it never gets more, and what it leaves goes to the others. */
  cap: number;
}

/**
 * Divides `total` whole units among claimants by **weighted max-min fairness** ("progressive
 * filling", or water-filling): every claimant gets `total × weight / Σweight` unless it can use
 * less (its cap), and what the modest ones leave is divided again among the rest, by weight, until
 * the units or the wants run out. Work-conserving (nothing is kept back while someone can use it)
 * and strategy-proof in the way that matters here: a claimant that asks for more than its share
 * (a 50,000-run backfill) gets its share, never a unit of another's.
 *
 * This is the division that weighted fair queueing and deficit round robin approach over time;
 * the engine can make it at once because it knows every claimant's cap up front (what each
 * tenant's executors can take), so it needs no rounds or per-claimant counters. Whole units: the
 * remainders of the rounding down go one each to the claimants with room left, in the order
 * given — callers rotate that order so no claimant always gets them.
 *
 * O(n log n) for n claimants (one sort by cap/weight).
 */
export function fairShares<K>(total: number, claimants: readonly Claimant<K>[]): Map<K, number> {
  const shares = new Map<K, number>();
  for (const c of claimants) shares.set(c.key, 0);
  let left = Math.max(0, Math.floor(total));
  // The claimants that need least relative to their weight are settled first: each either fits
  // in its fair part of what is left (and takes its cap) or does not (and neither does anyone after it).
  const order = claimants.filter((c) => c.weight > 0 && c.cap > 0).sort((a, b) => a.cap / a.weight - b.cap / b.weight);
  let weightLeft = order.reduce((sum, c) => sum + c.weight, 0);
  let i = 0;
  for (; i < order.length; i++) {
    const c = order[i];
    const cap = Math.floor(c.cap);
    if (cap > (left * c.weight) / weightLeft) break;
    shares.set(c.key, cap);
    left -= cap;
    weightLeft -= c.weight;
  }
  const unsettled = order.slice(i);
  const level = weightLeft > 0 ? left / weightLeft : 0;
  for (const c of unsettled) {
    const share = Math.floor(level * c.weight);
    shares.set(c.key, share);
    left -= share;
  }
  for (const c of claimants) {
    if (left <= 0) break;
    if (c.weight > 0 && (shares.get(c.key) ?? 0) < Math.floor(c.cap)) {
      shares.set(c.key, (shares.get(c.key) ?? 0) + 1);
      left--;
    }
  }
  return shares;
}
