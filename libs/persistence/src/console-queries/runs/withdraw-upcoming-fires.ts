import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const WITHDRAW_UPCOMING_FIRES = runWrite('withdrawUpcomingFires', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED'], 'CANCELLED');

/** What a withdrawn fire was: where engines held it, and whether one may have sent it. */
export interface WithdrawnFire {
  runId: number;
  engineGroup: string;
  /** CLAIMED or later when withdrawn: an engine may have sent it to an executor, where it waits for its instant. */
  mayBeSent: boolean;
}

/** The error a withdrawn fire ends with. */
export const WITHDRAWN_BY_PAUSE = 'Cancelled: the task was paused before this fire';

/**
 * Tasks are paused: their scheduled fires planned ahead of their instant — written by the
 * planner, claimed, even sent ahead to an executor (BATON_SEND_AHEAD_MS) — end CANCELLED, so a
 * pause stops every fire that has not come yet, however far ahead engines prepare them:
 *
 *   SELECT id, state, engine_group FROM runs
 *    WHERE tenant_id = ? AND task_id IN (…) AND cause = 'SCHEDULE' AND scheduled_at > ?
 *      AND state IN ('PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED') ORDER BY id
 *   UPDATE runs SET state = 'CANCELLED', error = ?, finished_at = ?, updated_at = ?
 *    WHERE id IN (…) AND state IN ('PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED')
 *
 * A fire whose instant has come runs (pausing stops the schedule, not a fire under way), and so
 * do manual, backfill and retry runs (explicit requests). An engine holding a withdrawn run in
 * memory finds it CANCELLED at its DISPATCHED mark and drops it; one it sent is aborted at its
 * executor once the caller tells the engines (RunWakeups.cancelled) after the commit.
 */
export async function withdrawUpcomingFires(manager: EntityManager, input: { tenantId: string; taskIds: readonly number[]; now: number }): Promise<WithdrawnFire[]> {
  if (input.taskIds.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, state, engine_group FROM runs
      WHERE tenant_id = ? AND task_id IN (${placeholders(input.taskIds.length)}) AND cause = 'SCHEDULE' AND scheduled_at > ? AND ${stateIn(WITHDRAW_UPCOMING_FIRES)}
      ORDER BY id`,
    [input.tenantId, ...input.taskIds, input.now],
  );
  if (rows.length === 0) return [];
  const fires = rows.map((r) => ({ runId: num(r.id), engineGroup: String(r.engine_group), mayBeSent: r.state !== 'PENDING' }));
  const ids = fires.map((f) => f.runId);
  await execute(
    manager,
    `UPDATE runs SET state = 'CANCELLED', error = ?, finished_at = ?, updated_at = ? WHERE id IN (${placeholders(ids.length)}) AND ${stateIn(WITHDRAW_UPCOMING_FIRES)}`,
    [WITHDRAWN_BY_PAUSE, input.now, input.now, ...ids],
  );
  return fires;
}
