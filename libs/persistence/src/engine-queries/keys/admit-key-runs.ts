import type { EntityManager } from 'typeorm';
import { deferStatement } from '../riders';
import { placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its write: the run stays CLAIMED, now counted against its key (run-writes.spec.ts). */
export const ADMIT_KEY_RUNS = runWrite('admitKeyRuns', ['CLAIMED'], 'same');

/**
 * Claimed runs take a place of their key:
 *
 *   UPDATE runs SET run_key = ?, key_scope = ?, updated_at = ? WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ?
 *
 * From here they count in countGoingKeyRuns of their key (`scope`: their task's or their key
 * group's) until they end; a run given back to PENDING (engine shutdown, takeover) or waiting for
 * a retry keeps its place. A run bounded by rate alone is marked through with its rate key and
 * scope NULL: a later claim of it takes no second token, and it holds no place of any key (a
 * group naming a concurrency bound never counts it).
 *
 * Deferred (riders.ts: nobody reads its answer), as the key's holds and cancels are: in a MySQL
 * transaction of inTransaction the admission's writes ride with its COMMIT, and a keyed run's
 * admission by a claim of its own is two round trips (the keys' locks with their counts, the
 * writes with the COMMIT) where it was four. A failed write fails the COMMIT: the claim is rolled
 * back.
 */
export async function admitKeyRuns(manager: EntityManager, input: { ids: readonly number[]; key: string; scope: string | null; owner: string; now: number }): Promise<void> {
  if (input.ids.length === 0) return;
  await deferStatement(
    manager,
    `UPDATE runs SET run_key = ?, key_scope = ?, updated_at = ? WHERE id IN (${placeholders(input.ids.length)}) AND ${stateIn(ADMIT_KEY_RUNS)} AND claimed_by = ?`,
    [input.key, input.scope, input.now, ...input.ids, input.owner],
  );
}
