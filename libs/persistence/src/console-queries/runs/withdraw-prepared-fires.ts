import type { EntityManager } from 'typeorm';
import { caseById, chunks, dialectOf, execute, num, placeholders } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { STAMPS_BY_CANCEL, stampsByCancelParams } from '../../runs/stamps-by-cancel';

/** Its move, checked against the run state machine (run-writes.spec.ts): the prepared fires an engine took. */
export const WITHDRAW_PREPARED_FIRES = runWrite('withdrawPreparedFires', ['CLAIMED', 'DISPATCHED', 'ACCEPTED'], 'CANCELLED');

/** A withdrawn prepared fire: its instant (given back to its task's schedule), and whether an engine may have sent it. */
export interface WithdrawnFire {
  runId: number;
  taskId: number;
  engineGroup: string;
  scheduledAt: number;
  /** CLAIMED or later when withdrawn: an engine may have sent it to an executor, where it waits for its instant. */
  mayBeSent: boolean;
}

/** The errors a withdrawn fire that an engine had taken ends with. */
export const WITHDRAWN_BY = {
  pause: 'Cancelled: the task was paused before this fire',
  edit: 'Cancelled: the task was edited before this fire; it runs again as the task now says',
  calendar: "Cancelled: the task's calendar was edited before this fire; it runs again unless the calendar now excludes its date",
  dependency: 'Cancelled: the task became a parent (its first dependency) before this fire; it runs again and starts its children',
} as const;

/**
 * Withdraws the tasks' prepared fires (domain prepared-fires.ts) whose instant is after `after`:
 *
 *   SELECT id, task_id, state, engine_group, scheduled_at FROM runs
 *    WHERE tenant_id = ? AND task_id IN (…) AND cause = 'SCHEDULE' AND scheduled_at > ?
 *      AND state IN ('PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED') ORDER BY id [FOR UPDATE]
 *   DELETE FROM runs WHERE id IN (…PENDING…) AND state = 'PENDING'
 *   UPDATE runs SET state = 'CANCELLED', error = ?, fire_key = CASE id WHEN ? THEN 'w:<id>' … END, finished_at = ?, updated_at = ?, <STAMPS_BY_CANCEL>
 *    WHERE id IN (…the others…) AND state IN ('CLAIMED', 'DISPATCHED', 'ACCEPTED')
 *
 * A PENDING fire is a plan no engine took: it is deleted, so the instant planned again under the
 * task as it now is does not show twice in the history. One an engine took ends CANCELLED with
 * `error` (it was held, maybe sent: its history is real), under a fire key freed for the instant's
 * new run. Locked on MySQL, so a claim (SKIP LOCKED) passes them by and an engine's DISPATCHED
 * mark waits for the commit, then finds them gone or CANCELLED and drops them. One it had sent
 * is aborted at its executor once the caller tells the engines (RunWakeups.cancelled) after the
 * commit. Fires whose instant is at or before `after` run as prepared, and so do manual,
 * backfill and retry runs (explicit requests).
 */
export async function withdrawPreparedFires(
  manager: EntityManager,
  input: { tenantId: string; taskIds: readonly number[]; after: number; now: number; error: string },
): Promise<WithdrawnFire[]> {
  if (input.taskIds.length === 0) return [];
  const lock = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, task_id, state, engine_group, scheduled_at FROM runs
      WHERE tenant_id = ? AND task_id IN (${placeholders(input.taskIds.length)}) AND cause = 'SCHEDULE' AND scheduled_at > ?
        AND state IN ('PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED')
      ORDER BY id ${lock}`,
    [input.tenantId, ...input.taskIds, input.after],
  );
  const fires: WithdrawnFire[] = rows.map((r) => ({ runId: num(r.id), taskId: num(r.task_id), engineGroup: String(r.engine_group), scheduledAt: num(r.scheduled_at), mayBeSent: r.state !== 'PENDING' }));
  for (const part of chunks(fires.filter((f) => !f.mayBeSent))) {
    await execute(manager, `DELETE FROM runs WHERE id IN (${placeholders(part.length)}) AND state = 'PENDING'`, part.map((f) => f.runId));
  }
  for (const part of chunks(fires.filter((f) => f.mayBeSent))) {
    const freedKey = caseById(part, (f) => f.runId, (f) => `w:${f.runId}`);
    await execute(
      manager,
      `UPDATE runs SET state = 'CANCELLED', error = ?, fire_key = ${freedKey.sql}, finished_at = ?, updated_at = ?, ${STAMPS_BY_CANCEL}
        WHERE id IN (${placeholders(part.length)}) AND ${stateIn(WITHDRAW_PREPARED_FIRES)}`,
      [input.error, ...freedKey.params, input.now, input.now, ...stampsByCancelParams(input.now), ...part.map((f) => f.runId)],
    );
  }
  return fires;
}
