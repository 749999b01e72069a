import type { EntityManager } from 'typeorm';
import { dialectOf, execute, MAX_ROWS_PER_STATEMENT, num, numOrNull, placeholders, skipLocked } from '../sql';

/**
 * The rows a renewal looks at: this engine's CLAIMED and DISPATCHED runs, through ix_runs_lease
 * (state, claimed_by, lease_until) — two point ranges holding exactly this node's runs, so it
 * neither scans the run history nor touches rows other engines hold. A plain read: it locks nothing.
 */
export const FIND_LEASED_RUNS_SQL = `SELECT id, state, lease_until FROM runs WHERE claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED')`;

/**
 * Every run this engine holds in the database, with its lease: what a renewal extends
 * (leaseNeedsRenewal picks those whose lease ends within a lease: extendLeases), and what the node
 * checks against what it holds in memory (a row it holds there but not in memory is a stray:
 * LeaseRenewerService).
 *
 * Why a plain read and not the locking one it was (`… FOR UPDATE SKIP LOCKED`, the whole renewal
 * one transaction): that locked every row the node held until the renewal committed, and behind a
 * backlog a node holds thousands. In an event-ingest drain (2 engines, ~20,000 runs waiting) a
 * renewal held 7,842 rows' locks for about a second while the node's own DISPATCHED marks of those
 * runs waited on them; InnoDB counted 20–40 s of row-lock waits a run of that benchmark. Now only
 * the rows due for renewal are locked, a statement's worth at a time (extendLeases).
 */
export async function findLeasedRuns(manager: EntityManager, owner: string): Promise<LeasedRun[]> {
  const { rows } = await execute<{ id: unknown; state: LeasedRun['state']; lease_until: unknown }>(manager, FIND_LEASED_RUNS_SQL, [owner]);
  return rows.map((r) => ({ id: num(r.id), state: r.state, leaseUntil: numOrNull(r.lease_until) }));
}

/** Most runs one extendLeases takes (a statement's worth of ids). */
export const EXTEND_LEASES_BATCH = MAX_ROWS_PER_STATEMENT;

/**
 * Extends the lease of these runs of the engine (at most EXTEND_LEASES_BATCH),
 * in the caller's transaction (READ COMMITTED):
 *
 *   SELECT id FROM runs FORCE INDEX (PRIMARY)
 *    WHERE id IN (…) AND claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED') FOR UPDATE SKIP LOCKED
 *   UPDATE runs SET lease_until = ? WHERE id IN (…those)
 *
 * By primary key: through ix_runs_lease (claimed_by, state: the engine's other held runs too) the
 * locking read would lock what it only looks at.
 *
 * Why SKIP LOCKED rather than one guarded `UPDATE`: a row locked at that moment is being changed by
 * this node's own dispatch marks or callback commits — it is on its way out of CLAIMED/DISPATCHED
 * or into it — and waiting for those locks made a renewal of 5,000 held runs take longer than the
 * lease under a 10,000-run burst on 2 cores: the leases ran out, a peer took the runs over as
 * abandoned and the misfire policy skipped thousands of them (`npm run bench -- burst --full`,
 * 10,000 × 2). A skipped row keeps its lease for this round; the next renewal (a third of the
 * lease later) takes it. The guard on owner and state leaves alone a run that changed hands since
 * the read. `updated_at` is left alone: a renewal is bookkeeping, not a change of the run.
 * Returns how many runs it renewed.
 */
export async function extendLeases(manager: EntityManager, owner: string, ids: readonly number[], leaseUntil: number): Promise<number> {
  if (ids.length === 0) return 0;
  const mysql = dialectOf(manager) === 'mysql';
  const { rows } = await execute<{ id: unknown }>(
    manager,
    `SELECT id FROM runs ${mysql ? 'FORCE INDEX (PRIMARY)' : ''}
      WHERE id IN (${placeholders(ids.length)}) AND claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED') ${skipLocked(mysql ? 'mysql' : 'sqlite')}`,
    [...ids, owner],
  );
  if (rows.length === 0) return 0;
  const locked = rows.map((r) => num(r.id));
  await execute(manager, `UPDATE runs SET lease_until = ? WHERE id IN (${placeholders(locked.length)})`, [leaseUntil, ...locked]);
  return locked.length;
}

/** A run this engine holds, as a renewal found it. */
export interface LeasedRun {
  id: number;
  state: 'CLAIMED' | 'DISPATCHED';
  leaseUntil: number | null;
}
