import type { EntityManager } from 'typeorm';
import { chunks, execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const SKIP_MISFIRED_RUNS = runWrite('skipMisfiredRuns', ['CLAIMED'], 'SKIPPED');

export interface SkipMisfiredRunsInput {
  ids: readonly number[];
  owner: string;
  leaseBefore?: number;
  /** Why, for the run's error column (shown in the console). */
  reason: string;
  now: number;
}

/**
 * Ends held runs that became too late while their engine was gone, per their task's misfire
 * policy (SKIP; FIRE_ONCE_NOW's older late runs):
 *
 *   UPDATE runs SET state = 'SKIPPED', claimed_by = NULL, lease_until = NULL,
 *                   finished_at = ?, error = ?, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ? [AND lease_until < ?]
 *
 * CLAIMED only: CLAIMED → SKIPPED is an edge of the run state machine; a DISPATCHED run may be
 * executing already and is always released (releaseRuns), never skipped. Same guards as
 * releaseRuns. Returns the number of runs skipped.
 */
export async function skipMisfiredRuns(manager: EntityManager, input: SkipMisfiredRunsInput): Promise<number> {
  let skipped = 0;
  const leased = input.leaseBefore !== undefined;
  for (const ids of chunks(input.ids)) {
    const { affected } = await execute(
      manager,
      `UPDATE runs SET state = 'SKIPPED', claimed_by = NULL, lease_until = NULL, finished_at = ?, error = ?, updated_at = ?
        WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(SKIP_MISFIRED_RUNS)} AND claimed_by = ? ${leased ? 'AND lease_until < ?' : ''}`,
      [input.now, input.reason, input.now, ...ids, input.owner, ...(leased ? [input.leaseBefore] : [])],
    );
    skipped += affected;
  }
  return skipped;
}
