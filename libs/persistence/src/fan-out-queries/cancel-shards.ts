import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../engine-queries/sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Its moves, checked against the run state machine (run-writes.spec.ts). */
export const CANCEL_SHARDS = runWrite('cancelShards', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'], 'CANCELLED');

/** A shard that was executing when it was cancelled: its executor is asked to abort it. */
export interface CancelledShard {
  runId: number;
  attempt: number;
  executorId: number | null;
}

/**
 * A fan-out run was cancelled (by hand, or REPLACEd): so are its shards that have not ended.
 *
 *   SELECT id, attempt, state, executor_id FROM runs WHERE parent_run_id IN (…) AND cause = 'SHARD' AND state IN (…live…)
 *   UPDATE runs SET state = 'CANCELLED', finished_at = ?, error = ?, deadline_at = NULL, updated_at = ?
 *    WHERE id IN (…) AND state IN (…live…)
 *
 * Shards hold no lease worth keeping once cancelled; a CLAIMED one's engine finds it CANCELLED
 * when it tries to send it (its guarded DISPATCHED mark matches nothing). Returns the shards
 * that were executing (DISPATCHED, ACCEPTED), to abort.
 */
export async function cancelShards(manager: EntityManager, input: { parentRunIds: readonly number[]; reason: string; now: number }): Promise<CancelledShard[]> {
  if (input.parentRunIds.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, attempt, state, executor_id FROM runs WHERE parent_run_id IN (${placeholders(input.parentRunIds.length)}) AND cause = 'SHARD' AND ${stateIn(CANCEL_SHARDS)}`,
    [...input.parentRunIds],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => num(r.id));
  await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', finished_at = ?, error = ?, deadline_at = NULL, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(CANCEL_SHARDS)}`,
    [input.now, input.reason, input.now, ...ids],
  );
  return rows
    .filter((r) => r.state === 'DISPATCHED' || r.state === 'ACCEPTED')
    .map((r) => ({ runId: num(r.id), attempt: num(r.attempt), executorId: r.executor_id === null ? null : num(r.executor_id) }));
}
