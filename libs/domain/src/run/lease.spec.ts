import { describe, expect, it } from 'vitest';
import { claimLeaseUntil, leaseNeedsRenewal, leaseRenewalPeriod, renewedLeaseUntil } from './lease';

const L = 15_000;
const P = leaseRenewalPeriod(L);

/**
 * Renewal ticks every P from `firstTick`, the ones in `failing` lost; returns when the lease of a
 * run claimed at `claimedAt` ran out (Infinity if not by `until`). A lease holds through its
 * instant, as the takeover's sweep reads it (`lease_until < now` is expired).
 */
function expiry(claimedAt: number, firstTick: number, failing: Set<number>, until: number): number {
  let lease = claimLeaseUntil(claimedAt, L);
  for (let tick = firstTick; tick <= until; tick += P) {
    if (tick < claimedAt) continue;
    if (lease < tick) return lease;
    if (!failing.has(tick) && leaseNeedsRenewal(lease, tick, L)) lease = renewedLeaseUntil(tick, L);
  }
  return lease < until ? lease : Infinity;
}

describe('run leases', () => {
  it('renews a third of the lease apart; a claim gets one period more than a renewal', () => {
    expect(P).toBe(5_000);
    expect(claimLeaseUntil(1_000, L)).toBe(21_000);
    expect(renewedLeaseUntil(1_000, L)).toBe(16_000);
    expect(leaseRenewalPeriod(2)).toBe(1);
  });

  it('skips a run claimed since the last renewal, and renews every run claimed before it', () => {
    const tick = 100_000;
    for (let age = 0; age < P; age += 250) expect(leaseNeedsRenewal(claimLeaseUntil(tick - age, L), tick, L)).toBe(false);
    for (let age = P + 1; age < 3 * P; age += 250) expect(leaseNeedsRenewal(claimLeaseUntil(tick - age, L), tick, L)).toBe(true);
    expect(leaseNeedsRenewal(renewedLeaseUntil(tick - P, L), tick, L)).toBe(true); // renewed last time: renewed again
    expect(leaseNeedsRenewal(null, tick, L)).toBe(true);
  });

  it('whenever a run was claimed, any two renewals in a row may fail and its lease still holds; three in a row may end it', () => {
    const start = 0;
    const ticks = Array.from({ length: 12 }, (_, i) => start + (i + 1) * P);
    for (let claimedAt = 0; claimedAt < 4 * P; claimedAt += 137) {
      for (let i = 0; i + 1 < ticks.length; i++) {
        expect(expiry(claimedAt, start + P, new Set([ticks[i], ticks[i + 1]]), ticks.at(-1)!)).toBe(Infinity);
      }
    }
    // Three lost in a row, right after the claim: the lease ends.
    expect(expiry(0, P, new Set([P, 2 * P, 3 * P, 4 * P]), 12 * P)).toBeLessThan(Infinity);
  });
});
