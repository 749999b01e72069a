import type { EntityManager } from 'typeorm';
import { leaseNeedsRenewal, renewedLeaseUntil } from '@baton/domain';
import { chunks, dialectOf, execute, num, numOrNull, placeholders, skipLocked } from '../sql';

/**
 * The rows whose lease a renewal extends: this engine's CLAIMED and DISPATCHED runs, through
 * ix_runs_lease (state, claimed_by, lease_until) — two point ranges holding exactly this node's
 * runs, so it neither scans the run history nor touches rows other engines hold. On MySQL the
 * rows other transactions have locked are skipped (see renewLeases).
 */
export function renewLeasesSelectSql(dialect: 'mysql' | 'sqlite'): string {
  return `SELECT id, state, lease_until FROM runs WHERE claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED') ${skipLocked(dialect)}`;
}

/**
 * Extends the lease of what this engine holds, where it would end within a lease from now
 * (leaseNeedsRenewal: a run claimed since the last renewal still has more, and is left alone):
 *
 *   SELECT id, state, lease_until FROM runs WHERE claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED') FOR UPDATE SKIP LOCKED
 *   UPDATE runs SET lease_until = ? WHERE id IN (…)          -- those due for it, 500 ids a statement
 *
 * Why SKIP LOCKED rather than one `UPDATE … WHERE claimed_by = ?`: a row locked at that moment
 * is being changed by this node's own dispatch marks or callback commits — it is on its way out
 * of CLAIMED/DISPATCHED or into it — and waiting for those locks made a renewal of 5,000 held
 * runs take longer than the lease under a 10,000-run burst on 2 cores: the leases ran out, a
 * peer took the runs over as abandoned and the misfire policy skipped thousands of them (`npm run
 * bench -- burst --full`, 10,000 × 2). A skipped row keeps its lease for this round; the next renewal
 * (a third of the lease later) takes it. Measured on MariaDB 10.11 for the one-statement form:
 * 2,000 held runs renewed in 4 ms, 11,400 in 95–165 ms. `updated_at` is left alone: a renewal is
 * bookkeeping, not a change of the run. Why not every held row: in a 4,000-run burst the renewal
 * that fell at T rewrote 3,392 rows (and their ix_runs_lease entries) claimed a moment before.
 * Returns every run held, with its state, renewed or not: the node checks them against what it
 * holds in memory (a row it holds there but not in memory is a stray: LeaseRenewerService).
 */
export async function renewLeases(manager: EntityManager, owner: string, at: { now: number; leaseMs: number }): Promise<LeasedRun[]> {
  const { rows } = await execute<{ id: unknown; state: LeasedRun['state']; lease_until: unknown }>(manager, renewLeasesSelectSql(dialectOf(manager)), [owner]);
  const due = rows.filter((r) => leaseNeedsRenewal(numOrNull(r.lease_until), at.now, at.leaseMs)).map((r) => num(r.id));
  for (const ids of chunks(due)) {
    await execute(manager, `UPDATE runs SET lease_until = ? WHERE id IN (${placeholders(ids.length)})`, [renewedLeaseUntil(at.now, at.leaseMs), ...ids]);
  }
  return rows.map((r) => ({ id: num(r.id), state: r.state }));
}

/** A run this engine holds, as a renewal found it. */
export interface LeasedRun {
  id: number;
  state: 'CLAIMED' | 'DISPATCHED';
}
