import type { EntityManager } from 'typeorm';
import { deferStatement } from '../riders';
import { placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const HOLD_KEY_RUNS = runWrite('holdKeyRuns', ['CLAIMED'], 'HELD');

/**
 * Claimed runs whose key has its limit of runs going wait in the database (onLimit QUEUE):
 *
 *   UPDATE runs SET state = 'HELD', run_key = ?, key_scope = ?, claimed_by = NULL, lease_until = NULL, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ?
 *
 * HELD is no claimable state, so claims never read them again: a key with thousands held costs
 * the claim of other keys and tenants nothing. releaseHeldKeyRuns brings the oldest back when a
 * place is free. No engine holds them (no lease): an engine's death loses none.
 *
 * Deferred: it rides with the admission's COMMIT (admitKeyRuns says why).
 */
export async function holdKeyRuns(manager: EntityManager, input: { ids: readonly number[]; key: string; scope: string; owner: string; now: number }): Promise<void> {
  if (input.ids.length === 0) return;
  await deferStatement(
    manager,
    `UPDATE runs SET state = 'HELD', run_key = ?, key_scope = ?, claimed_by = NULL, lease_until = NULL, updated_at = ?
      WHERE id IN (${placeholders(input.ids.length)}) AND ${stateIn(HOLD_KEY_RUNS)} AND claimed_by = ?`,
    [input.key, input.scope, input.now, ...input.ids, input.owner],
  );
}
