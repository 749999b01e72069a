import type { EntityManager } from 'typeorm';
import { deferStatement } from '../riders';
import { placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_NEW_KEY_RUNS = runWrite('cancelNewKeyRuns', ['CLAIMED'], 'CANCELLED');

/**
 * Claimed runs that find their key full under onLimit CANCEL_NEW (or are older than the batch's
 * newest under CANCEL_OLDEST) end before they are sent:
 *
 *   UPDATE runs SET state = 'CANCELLED', run_key = ?, key_scope = ?, claimed_by = NULL, lease_until = NULL,
 *                   finished_at = ?, error = ?, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ?
 *
 * Deferred: it rides with the admission's COMMIT (admitKeyRuns says why).
 */
export async function cancelNewKeyRuns(manager: EntityManager, input: { ids: readonly number[]; key: string; scope: string; owner: string; reason: string; now: number }): Promise<void> {
  if (input.ids.length === 0) return;
  await deferStatement(
    manager,
    `UPDATE runs SET state = 'CANCELLED', run_key = ?, key_scope = ?, claimed_by = NULL, lease_until = NULL, finished_at = ?, error = ?, updated_at = ?
      WHERE id IN (${placeholders(input.ids.length)}) AND ${stateIn(CANCEL_NEW_KEY_RUNS)} AND claimed_by = ?`,
    [input.key, input.scope, input.now, input.reason, input.now, ...input.ids, input.owner],
  );
}
