import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const RELEASE_HELD_KEY_RUNS = runWrite('releaseHeldKeyRuns', ['HELD'], 'PENDING');

/**
 * Held runs given the places of their key (found by findHeldKeyRuns, chosen by domain
 * releaseKeyed):
 *
 *   UPDATE runs SET state = 'PENDING', late_from_at = ?, updated_at = ? WHERE id IN (…) AND state = 'HELD'
 *
 * They come back PENDING with run_key and key_scope kept — admitted already, counted against the
 * key from now on — so the claim that takes them admits nothing again. Call it holding lockRunKey
 * (the places were counted under it). late_from_at: its lateness counts from now, not from a fire
 * time the key's wait put behind it (find-late-runs.ts). Returns how many moved.
 */
export async function releaseHeldKeyRuns(manager: EntityManager, input: { ids: readonly number[]; now: number }): Promise<number> {
  if (input.ids.length === 0) return 0;
  const { affected } = await execute(manager, `UPDATE runs SET state = 'PENDING', late_from_at = ?, updated_at = ? WHERE id IN (${placeholders(input.ids.length)}) AND ${stateIn(RELEASE_HELD_KEY_RUNS)}`, [
    input.now,
    input.now,
    ...input.ids,
  ]);
  return affected;
}
