import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import type { RunKeyRef } from './lock-run-key';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const RELEASE_HELD_KEY_RUNS = runWrite('releaseHeldKeyRuns', ['HELD'], 'PENDING');

/**
 * A key's free places go to its oldest held runs:
 *
 *   SELECT id FROM runs WHERE tenant_id = ? AND task_id = ? AND run_key = ? AND state = 'HELD' ORDER BY id LIMIT ?
 *   UPDATE runs SET state = 'PENDING', updated_at = ? WHERE id IN (…) AND state = 'HELD'
 *
 * The HELD range of ix_runs_key, in id order (InnoDB's entries end with the primary key), cut
 * at `count`: a key with 10,000 held runs reads `count` of them. They come back PENDING with
 * run_key kept — admitted already, counted against the key from now on — so the claim that takes
 * them admits nothing again. Call it holding lockRunKey, with `count` = limit − going.
 * Returns the ids released (to wake a claim for them).
 */
export async function releaseHeldKeyRuns(manager: EntityManager, input: RunKeyRef & { count: number; now: number }): Promise<number[]> {
  if (input.count <= 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id FROM runs WHERE tenant_id = ? AND task_id = ? AND run_key = ? AND ${stateIn(RELEASE_HELD_KEY_RUNS)} ORDER BY id LIMIT ?`,
    [input.tenantId, input.taskId, input.key, input.count],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => num(r.id));
  await execute(manager, `UPDATE runs SET state = 'PENDING', updated_at = ? WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(RELEASE_HELD_KEY_RUNS)}`, [input.now, ...ids]);
  return ids;
}
