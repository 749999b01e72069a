import type { EntityManager } from 'typeorm';
import { sendAhead } from '../riders';
import { num } from '../sql';
import type { RunKeyRef } from './lock-run-key';

/** The statement (exported so the plan test EXPLAINs this very text). */
export const FIND_HELD_KEY_RUNS_SQL = `SELECT id, task_id FROM runs
  WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND state = 'HELD' AND id > ? ORDER BY id LIMIT ?`;

/**
 * A key's oldest held runs after `afterId`, with their tasks (a key group's held runs are of its
 * several tasks, each admitted against its own task's limit):
 *
 *   SELECT id, task_id FROM runs WHERE tenant_id = ? AND key_scope = ? AND run_key = ? AND state = 'HELD' AND id > ?
 *    ORDER BY id LIMIT ?
 *
 * The HELD range of ix_runs_key, in id order (InnoDB's entries end with the primary key), cut at
 * `limit`: a key with 10,000 held runs reads `limit` of them. The task is read from the row, not
 * the index: `limit` rows at most. Call it holding lockRunKey. Sent ahead (riders.ts): in a
 * transaction it rides with what is issued before it is awaited.
 */
export async function findHeldKeyRuns(manager: EntityManager, input: RunKeyRef & { afterId: number; limit: number }): Promise<Array<{ id: number; taskId: number }>> {
  if (input.limit <= 0) return [];
  const rows = await sendAhead(manager, FIND_HELD_KEY_RUNS_SQL, [input.tenantId, input.scope, input.key, input.afterId, input.limit]);
  return rows.map((r) => ({ id: num(r.id), taskId: num(r.task_id) }));
}
