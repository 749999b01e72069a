import type { Millis } from '../types';

/**
 * Run leases. A run an engine holds (CLAIMED, or DISPATCHED while its send is in flight) carries
 * `lease_until`; the holder renews it every renewal period, a third of BATON_LEASE_MS, so that two
 * renewals in a row may fail (a slow database, a long pause) before the lease runs out and a
 * survivor may take the run. An expired lease costs a wasted claim, never a second send: every
 * later write of the old holder is guarded on its ownership.
 *
 * A renewal writes only the leases that would end within a lease from now: one row write (and
 * its ix_runs_lease entry) per held run and period would otherwise go to runs claimed a moment
 * ago — in a burst, nearly every run of it, just when the burst is being sent. So a claim grants
 * one renewal period more than a renewal does: a run claimed after a renewal is skipped by the
 * next one, and when it is first renewed it still has two periods left, as every renewed run has.
 */

/** How often the holder renews its leases: a third of the lease. */
export function leaseRenewalPeriod(leaseMs: Millis): Millis {
  return Math.max(1, Math.floor(leaseMs / 3));
}

/** The lease a claim sets: the lease and one renewal period. */
export function claimLeaseUntil(now: Millis, leaseMs: Millis): Millis {
  return now + leaseMs + leaseRenewalPeriod(leaseMs);
}

/** The lease a renewal sets on the runs whose lease would end before it (leaseNeedsRenewal). */
export function renewedLeaseUntil(now: Millis, leaseMs: Millis): Millis {
  return now + leaseMs;
}

/** Whether a held run's lease is renewed at `now`: it would end within a lease from now (or has none). */
export function leaseNeedsRenewal(leaseUntil: Millis | null, now: Millis, leaseMs: Millis): boolean {
  return leaseUntil === null || leaseUntil < renewedLeaseUntil(now, leaseMs);
}
