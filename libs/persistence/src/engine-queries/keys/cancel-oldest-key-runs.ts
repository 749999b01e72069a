import type { EntityManager } from 'typeorm';
import { KEY_GOING_STATES } from '@baton/domain';
import { execute, num, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import type { RunKeyRef } from './lock-run-key';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_OLDEST_KEY_RUNS = runWrite('cancelOldestKeyRuns', KEY_GOING_STATES, 'CANCELLED');

/**
 * onLimit CANCEL_OLDEST: the key's `count` oldest going runs end to make room for new ones — of a
 * key group's key, whichever of its tasks they belong to.
 *
 *   SELECT id FROM runs WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND state IN (…going…) AND id NOT IN (…)
 *    ORDER BY id LIMIT ?
 *   UPDATE runs SET state = 'CANCELLED', claimed_by = NULL, lease_until = NULL, deadline_at = NULL,
 *                   finished_at = ?, error = ?, updated_at = ?
 *    WHERE id IN (…) AND state IN (…going…)
 *
 * The read is the key's going runs in ix_runs_key (at most its limit); `id NOT IN` leaves out the
 * runs this claim has just admitted. Call it holding lockRunKey. A run another engine holds
 * CLAIMED finds itself cancelled at its start (its guarded DISPATCHED mark matches nothing); one
 * sent is returned with `sent` so the caller asks its executor to abort it once committed.
 */
export async function cancelOldestKeyRuns(
  manager: EntityManager,
  input: RunKeyRef & { count: number; except: readonly number[]; reason: string; now: number },
): Promise<Array<{ id: number; sent: boolean }>> {
  if (input.count <= 0) return [];
  const except = input.except.length > 0 ? `AND id NOT IN (${placeholders(input.except.length)})` : '';
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, state FROM runs WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND ${stateIn(CANCEL_OLDEST_KEY_RUNS)} ${except}
      ORDER BY id LIMIT ?`,
    [input.tenantId, input.scope, input.key, ...input.except, input.count],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => num(r.id));
  await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', claimed_by = NULL, lease_until = NULL, deadline_at = NULL, finished_at = ?, error = ?, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(CANCEL_OLDEST_KEY_RUNS)}`,
    [input.now, input.reason, input.now, ...ids],
  );
  return rows.map((r) => ({ id: num(r.id), sent: r.state === 'DISPATCHED' || r.state === 'ACCEPTED' }));
}
