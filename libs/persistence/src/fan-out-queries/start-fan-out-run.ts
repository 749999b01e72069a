import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';
import { runWrite, stateIn } from '../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const START_FAN_OUT_RUN = runWrite('startFanOutRun', ['CLAIMED'], 'ACCEPTED');

/**
 * A fan-out run starts: CLAIMED → ACCEPTED, its shards written next in the same transaction (insertShardRuns).
 *
 *   UPDATE runs SET state = 'ACCEPTED', shard_total = ?, executor_id = NULL, dispatched_at = ?, accepted_at = ?, started_at = ?,
 *                   deadline_at = NULL, error = NULL, updated_at = ?
 *    WHERE id = ? AND state = 'CLAIMED' AND claimed_by = ? AND attempt = ?
 *
 * No executor and no deadline: the run is on no executor, and each shard keeps its own timeout —
 * so neither the executor-down reconciliation nor the watchdog's timeout ever picks it; it ends
 * when its last shard does (settleFanOutRun). Guarded on `claimed_by`: a run taken over meanwhile
 * is not started twice (the caller writes no shards).
 */
export async function startFanOutRun(
  manager: EntityManager,
  input: { runId: number; attempt: number; nodeId: string; shardTotal: number; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'ACCEPTED', shard_total = ?, executor_id = NULL, dispatched_at = ?, accepted_at = ?, started_at = ?, deadline_at = NULL, error = NULL, updated_at = ?
      WHERE id = ? AND ${stateIn(START_FAN_OUT_RUN)} AND claimed_by = ? AND attempt = ?`,
    [input.shardTotal, input.now, input.now, input.now, input.now, input.runId, input.nodeId, input.attempt],
  );
  return affected > 0;
}
