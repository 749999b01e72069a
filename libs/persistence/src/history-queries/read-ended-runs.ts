import type { EntityManager } from 'typeorm';
import type { EndedRun, RunCause, RunState } from '@baton/domain';
import { execute, num, numOrNull } from '../engine-queries/sql';

/**
 * The runs of a tenant (or of one of its tasks) that ended in [from, to), for a rollup — the
 * engine's history job, or the console over the part of a window not rolled up yet:
 *
 *   SELECT task_id, state, cause, attempt, scheduled_at, due_at, instant_at, late_from_at, dispatched_at, first_dispatched_at, hand_backs, started_at, finished_at
 *     FROM runs WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ? AND cause <> 'SHARD' [AND task_id = ?] [LIMIT ?]
 *
 * A range of ix_runs_tenant_finished. Shards are left out: a fan-out run counts once, as the
 * one fire of its task it is (its shards are listed with it in the console). A run waiting for its
 * retry has no finished_at (its ended attempts are in run_attempts); the rollup leaves out any
 * row read that has not ended. instant_at with due_at and
 * started_at: whether the last attempt started before its instant (an early start); late_from_at: a
 * first attempt's lateness counts from its admission when its keys held it back, hand_backs: which
 * attempt is its first that counts (firstAttemptLateness).
 */
export async function readEndedRuns(manager: EntityManager, input: { tenantId: string; from: number; to: number; taskId?: number | null; limit?: number }): Promise<EndedRun[]> {
  const task = input.taskId === null || input.taskId === undefined ? '' : ' AND task_id = ?';
  const limit = input.limit === undefined ? '' : ` LIMIT ${Math.floor(input.limit)}`;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT task_id, state, cause, attempt, scheduled_at, due_at, instant_at, late_from_at, dispatched_at, first_dispatched_at, hand_backs, started_at, finished_at
       FROM runs WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ? AND cause <> 'SHARD'${task}${limit}`,
    [input.tenantId, input.from, input.to, ...(task ? [input.taskId] : [])],
  );
  return rows.map((r) => ({
    taskId: num(r.task_id),
    state: r.state as RunState,
    cause: r.cause as RunCause,
    attempt: num(r.attempt),
    scheduledAt: num(r.scheduled_at),
    dueAt: num(r.due_at),
    instantAt: numOrNull(r.instant_at),
    lateFromAt: numOrNull(r.late_from_at),
    dispatchedAt: numOrNull(r.dispatched_at),
    firstDispatchedAt: numOrNull(r.first_dispatched_at),
    handBacks: num(r.hand_backs),
    startedAt: numOrNull(r.started_at),
    finishedAt: num(r.finished_at),
  }));
}

/**
 * The first instant ≥ `from` at which a run of the tenant ended, or null: lets the job jump over
 * idle stretches (a new cursor, a quiet night) instead of walking them minute by minute.
 *
 *   SELECT MIN(finished_at) FROM runs WHERE tenant_id = ? AND finished_at >= ?
 */
export async function nextEndAfter(manager: EntityManager, tenantId: string, from: number): Promise<number | null> {
  const { rows } = await execute<{ at: unknown }>(manager, `SELECT MIN(finished_at) AS at FROM runs WHERE tenant_id = ? AND finished_at >= ?`, [tenantId, from]);
  return numOrNull(rows[0]?.at);
}
