import type { EntityManager } from 'typeorm';
import { KEY_GOING_STATES } from '@baton/domain';
import { sendAhead } from '../riders';
import { num } from '../sql';
import type { RunKeyRef } from './lock-run-key';

/** The statement (exported so the plan test EXPLAINs this very text). */
export const COUNT_GOING_KEY_RUNS_SQL = `SELECT COUNT(*) AS n FROM runs
  WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND state IN (${KEY_GOING_STATES.map((s) => `'${s}'`).join(', ')})`;

/**
 * How many runs of the key hold a place (admitted and not ended) — of a key group's key, its
 * tasks' runs together:
 *
 *   SELECT COUNT(*) AS n FROM runs
 *    WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND state IN ('PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT')
 *
 * Five short ranges of ix_runs_key (state, tenant_id, key_scope, run_key), read from the index
 * alone: at most the key's largest limit of entries — held runs (state HELD) and the key's history
 * (terminal states) sit in other ranges and are never read. Call it holding lockRunKey: under
 * READ COMMITTED it then sees every admission made before (they committed holding the same lock).
 * A run claimed but not admitted yet has key_scope NULL, so it does not count itself. Sent ahead
 * (riders.ts): in a transaction it rides with what is issued before it is awaited.
 */
export async function countGoingKeyRuns(manager: EntityManager, ref: RunKeyRef): Promise<number> {
  const rows = await sendAhead(manager, COUNT_GOING_KEY_RUNS_SQL, [ref.tenantId, ref.scope, ref.key]);
  return num(rows[0]?.n ?? 0);
}
