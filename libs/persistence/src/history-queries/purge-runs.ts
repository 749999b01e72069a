import type { EntityManager } from 'typeorm';
import { TERMINAL_STATES } from '@baton/domain';
import { execute, num, numOrNull, placeholders } from '../engine-queries/sql';

/** `state IN ('SUCCEEDED', …)`: only ended runs are ever purged — the claim path never touches them. */
const ENDED = `state IN (${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')})`;

export interface PurgeCandidate {
  id: number;
  taskId: number;
  flowId: number | null;
  scheduledAt: number;
  finishedAt: number;
}

function candidate(r: Record<string, unknown>): PurgeCandidate {
  return { id: num(r.id), taskId: num(r.task_id), flowId: numOrNull(r.flow_id) ?? num(r.id), scheduledAt: num(r.scheduled_at), finishedAt: num(r.finished_at) };
}

/**
 * The tenant's oldest ended runs from `from` on that ended before `before`:
 *
 *   SELECT id, task_id, flow_id, scheduled_at, finished_at FROM runs
 *    WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ? AND state IN (ended)
 *    ORDER BY finished_at LIMIT ?
 *
 * A range of ix_runs_tenant_finished read in index order, no lock: the rows are judged in the
 * engine (a task keeping more, the newest N of a task, a live flow) and deleted by id after.
 */
export async function findPurgeCandidates(manager: EntityManager, input: { tenantId: string; from: number; before: number; limit: number }): Promise<PurgeCandidate[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, task_id, flow_id, scheduled_at, finished_at FROM runs
      WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ? AND ${ENDED}
      ORDER BY finished_at LIMIT ?`,
    [input.tenantId, input.from, input.before, input.limit],
  );
  return rows.map(candidate);
}

/**
 * The oldest ended runs of one task that keeps its runs for less than its tenant:
 *
 *   SELECT … FROM runs WHERE task_id = ? AND scheduled_at < ? AND finished_at < ? AND state IN (ended)
 *    ORDER BY scheduled_at LIMIT ?
 *
 * ix_runs_task_time (a run ends after it was scheduled, so `scheduled_at < before` loses none).
 */
export async function findTaskPurgeCandidates(manager: EntityManager, input: { taskId: number; before: number; limit: number }): Promise<PurgeCandidate[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, task_id, flow_id, scheduled_at, finished_at FROM runs
      WHERE task_id = ? AND scheduled_at < ? AND finished_at < ? AND ${ENDED}
      ORDER BY scheduled_at LIMIT ?`,
    [input.taskId, input.before, input.before, input.limit],
  );
  return rows.map(candidate);
}

/**
 * Of these flows, the ones with a run not ended yet (its parents must stay: fan-in reads their
 * outcomes when it ends):
 *
 *   SELECT DISTINCT COALESCE(flow_id, id) AS flow FROM runs
 *    WHERE (flow_id IN (…) OR id IN (…)) AND state NOT IN (ended)
 *
 * A root's flow_id is null (its flow is its id), hence the primary key beside ix_runs_flow.
 */
export async function findLiveFlows(manager: EntityManager, flowIds: readonly number[]): Promise<Set<number>> {
  if (flowIds.length === 0) return new Set();
  const { rows } = await execute<{ flow: unknown }>(
    manager,
    `SELECT DISTINCT COALESCE(flow_id, id) AS flow FROM runs WHERE (flow_id IN (${placeholders(flowIds.length)}) OR id IN (${placeholders(flowIds.length)})) AND NOT ${ENDED}`,
    [...flowIds, ...flowIds],
  );
  return new Set(rows.map((r) => num(r.flow)));
}

/**
 * The (scheduled_at, id) of the task's n-th newest run, or null when it has n or fewer: runs
 * at or after it are among the newest n and are kept.
 *
 *   SELECT scheduled_at, id FROM runs WHERE task_id = ? AND cause <> 'SHARD' ORDER BY scheduled_at DESC, id DESC LIMIT 1 OFFSET n − 1
 *
 * Shards are not counted (a thousand-shard run is one run of its task), yet kept with their
 * fan-out run: a shard is written after its run, and scheduled at that moment, so it sorts
 * after it — inside the boundary whenever its run is.
 */
export async function newestRunsBoundary(manager: EntityManager, taskId: number, n: number): Promise<{ scheduledAt: number; id: number } | null> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT scheduled_at, id FROM runs WHERE task_id = ? AND cause <> 'SHARD' ORDER BY scheduled_at DESC, id DESC LIMIT 1 OFFSET ${Math.max(0, Math.floor(n) - 1)}`,
    [taskId],
  );
  return rows.length === 0 ? null : { scheduledAt: num(rows[0].scheduled_at), id: num(rows[0].id) };
}

/**
 * Deletes these runs and their logs, in the caller's transaction (READ COMMITTED: row locks on
 * these ids only, no gap locks that would stop the planner's inserts or a claim):
 *
 *   DELETE FROM run_logs WHERE run_id IN (…)
 *   DELETE FROM run_attempts WHERE run_id IN (…)
 *   DELETE FROM run_attempt_reports WHERE run_id IN (…)
 *   DELETE FROM run_approvals WHERE run_id IN (…)    -- an ended run's approval step, by primary key
 *   DELETE FROM runs WHERE id IN (…) AND state IN (ended)
 *
 * The state guard keeps a run that is not ended, whatever the caller read. Returns runs deleted.
 */
export async function deleteEndedRuns(manager: EntityManager, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  await execute(manager, `DELETE FROM run_logs WHERE run_id IN (${placeholders(ids.length)})`, [...ids]);
  await execute(manager, `DELETE FROM run_attempts WHERE run_id IN (${placeholders(ids.length)})`, [...ids]);
  await execute(manager, `DELETE FROM run_attempt_reports WHERE run_id IN (${placeholders(ids.length)})`, [...ids]);
  await execute(manager, `DELETE FROM run_approvals WHERE run_id IN (${placeholders(ids.length)})`, [...ids]);
  const { affected } = await execute(manager, `DELETE FROM runs WHERE id IN (${placeholders(ids.length)}) AND ${ENDED}`, [...ids]);
  return affected;
}
