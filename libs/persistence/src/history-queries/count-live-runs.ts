import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES, type RunState } from '@baton/domain';
import { execute, num } from '../engine-queries/sql';

/**
 * The tenant's (or one task's) runs not ended yet, by state:
 *
 *   SELECT state, COUNT(*) FROM runs WHERE engine_group = ? AND state IN (active) AND tenant_id = ? AND cause <> 'SHARD' [AND task_id = ?] GROUP BY state
 *
 * The (engine_group, state) prefix of ix_runs_claim: it reads the live runs of the tenant's
 * group only (the backlog), never the history. Shards are counted in their fan-out run, as the
 * ended runs are (readEndedRuns).
 */
export async function countLiveRuns(manager: EntityManager, input: { tenantId: string; engineGroup: string; taskId: number | null }): Promise<Partial<Record<RunState, number>>> {
  const task = input.taskId === null ? '' : ' AND task_id = ?';
  const { rows } = await execute<{ state: string; n: unknown }>(
    manager,
    `SELECT state, COUNT(*) AS n FROM runs
      WHERE engine_group = ? AND state IN (${ACTIVE_STATES.map((s) => `'${s}'`).join(', ')}) AND tenant_id = ? AND cause <> 'SHARD'${task}
      GROUP BY state`,
    [input.engineGroup, input.tenantId, ...(input.taskId === null ? [] : [input.taskId])],
  );
  return Object.fromEntries(rows.map((r) => [r.state, num(r.n)]));
}
