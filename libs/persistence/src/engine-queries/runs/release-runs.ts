import type { EntityManager } from 'typeorm';
import { chunks, execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its moves, checked against the run state machine (run-writes.spec.ts); callers pick `from`. */
export const RELEASE_RUNS = runWrite('releaseRuns', ['CLAIMED', 'DISPATCHED'], 'PENDING');

export interface ReleaseRunsInput {
  ids: readonly number[];
  /** The state the runs must still be in: CLAIMED, or DISPATCHED (a takeover). */
  from: 'CLAIMED' | 'DISPATCHED';
  /** The engine that must still hold them. */
  owner: string;
  /** Only if the lease ended before this instant (expired-lease sweep): a renewed lease wins. */
  leaseBefore?: number;
  now: number;
}

/**
 * Gives held runs back to the pool — claimable again by any engine of their group:
 *
 *   UPDATE runs SET state = 'PENDING', claimed_by = NULL, lease_until = NULL, updated_at = ?
 *    WHERE id IN (…) AND state = ? AND claimed_by = ? [AND lease_until < ?]
 *
 * Used by a graceful shutdown (the runs still waiting in memory), by the takeover of a dead
 * engine and by the expired-lease sweep. The guard on state and owner (and lease) makes it
 * safe against everything racing it: two survivors releasing the same runs (one matches, the
 * other 0 rows), the owner dispatching or renewing at the same moment.
 *
 * executor_id is deliberately kept: a DISPATCHED run may already have reached its executor;
 * the engine that claims it next re-sends it to that same executor, which de-duplicates by
 * (run id, attempt), so the work is not done twice. Returns the number of runs released.
 */
export async function releaseRuns(manager: EntityManager, input: ReleaseRunsInput): Promise<number> {
  let released = 0;
  const leased = input.leaseBefore !== undefined;
  for (const ids of chunks(input.ids)) {
    const { affected } = await execute(
      manager,
      `UPDATE runs SET state = 'PENDING', claimed_by = NULL, lease_until = NULL, updated_at = ?
        WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(RELEASE_RUNS, [input.from])} AND claimed_by = ? ${leased ? 'AND lease_until < ?' : ''}`,
      [input.now, ...ids, input.owner, ...(leased ? [input.leaseBefore] : [])],
    );
    released += affected;
  }
  return released;
}
