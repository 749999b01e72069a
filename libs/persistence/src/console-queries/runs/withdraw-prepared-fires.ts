import type { EntityManager } from 'typeorm';
import type { WithdrawalSettled } from '@baton/domain';
import { caseById, chunks, dialectOf, execute, num, placeholders } from '../../engine-queries/sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { keepsSentMark } from '../../runs/sent-marks';
import { STAMPS_BY_CANCEL, stampsByCancelParams } from '../../runs/stamps-by-cancel';

/** Its move, checked against the run state machine (run-writes.spec.ts): the prepared fires an engine took. */
export const WITHDRAW_PREPARED_FIRES = runWrite('withdrawPreparedFires', ['PENDING', 'RETRY_WAIT', 'CLAIMED', 'DISPATCHED', 'ACCEPTED'], 'CANCELLED');

/** A withdrawn prepared fire: its instant (given back to its task's schedule), and whether an engine may have sent it. */
export interface WithdrawnFire {
  runId: number;
  taskId: number;
  engineGroup: string;
  scheduledAt: number;
  /**
   * An engine may have sent it to an executor, where it waits for its instant: DISPATCHED or
   * ACCEPTED when withdrawn, or PENDING, RETRY_WAIT or CLAIMED with a sent mark kept
   * (keepsSentMark: its dead engine had sent it, or its dispatch got no answer). Its instant is
   * not given back yet (runs.withdrawal UNSETTLED: the engines settle it once the executor says
   * whether it started). One with no sent mark was never sent: an engine writes its DISPATCHED
   * mark (guarded on CLAIMED, waiting on this statement's lock) before its POST.
   */
  mayBeSent: boolean;
}

/** The instants a withdrawal gives back to their tasks' schedules now: those of the fires no executor can have (domain rewindForWithdrawn). */
export function instantsGivenBack(fires: readonly WithdrawnFire[]): number[] {
  return fires.filter((f) => !f.mayBeSent).map((f) => f.scheduledAt);
}

/** The errors a withdrawn fire that an engine had taken ends with. */
export const WITHDRAWN_BY = {
  pause: 'Cancelled: the task was paused before this fire',
  edit: 'Cancelled: the task was edited before this fire; it runs again as the task now says',
  calendar: "Cancelled: the task's calendar was edited before this fire; it runs again unless the calendar now excludes its date",
  dependency: 'Cancelled: the task became a parent (its first dependency) before this fire; it runs again and starts its children',
} as const;

/**
 * The error of a withdrawn fire once its executor's word settled it (runs.withdrawal): the
 * withdrawal's cause (WITHDRAWN_BY, up to its first ';'), then what became of the instant. Not
 * started: as written at the withdrawal (it runs again, or waits for the resume).
 */
export function settledWithdrawalError(error: string, settled: WithdrawalSettled): string {
  if (settled === 'NOT_STARTED') return error;
  const cause = error.split(';')[0];
  if (settled === 'STARTED') return `${cause}, but its executor had already started it when the withdrawal reached it: this instant ran as it was prepared and is not run again`;
  return `${cause}, but its executor never said whether it had started it (no answer to the abort, no callback by its timeout): this instant is taken as run as it was prepared and is not run again`;
}

/**
 * Withdraws the tasks' prepared fires (domain prepared-fires.ts) whose instant is after `after`:
 *
 *   SELECT id, task_id, state, engine_group, scheduled_at, <may be sent> AS may_be_sent FROM runs
 *    WHERE tenant_id = ? AND task_id IN (…) AND cause = 'SCHEDULE' AND scheduled_at > ? AND attempt = 1
 *      AND state IN ('PENDING', 'RETRY_WAIT', 'CLAIMED', 'DISPATCHED', 'ACCEPTED') ORDER BY id [FOR UPDATE]
 *     (<may be sent>: state IN ('DISPATCHED', 'ACCEPTED') OR (dispatched_at IS NOT NULL OR executor_id IS NOT NULL))
 *   DELETE FROM runs WHERE id IN (…planned…) AND state = 'PENDING' AND NOT <sent mark>
 *   UPDATE runs SET state = 'CANCELLED', error = ?, fire_key = CASE id WHEN ? THEN 'w:<id>' … END, finished_at = ?, updated_at = ?, <STAMPS_BY_CANCEL>
 *    WHERE id IN (…taken, never sent…) AND state IN ('RETRY_WAIT', 'CLAIMED') AND NOT <sent mark>
 *   UPDATE runs SET state = 'CANCELLED', error = ?, withdrawal = 'UNSETTLED', finished_at = ?, updated_at = ?, <STAMPS_BY_CANCEL>
 *    WHERE id IN (…may be sent…) AND state IN (…the five…)
 *
 * A PENDING fire with no sent mark is a plan no engine took: it is deleted, so the instant
 * planned again under the task as it now is does not show twice in the history. One an engine
 * took ends CANCELLED with `error` (it was held, maybe sent: its history is real). A CLAIMED or
 * RETRY_WAIT one (its dispatch deferred) with no sent mark was never sent: its fire key is freed
 * for the instant's new run. One an engine may have sent (`mayBeSent`) keeps its fire key and is
 * UNSETTLED (domain WithdrawalState): its executor may still start it, so no new run may take its
 * instant — the caller does not give it back, and a new schedule that yields the same instant
 * finds the key taken — until the engines settle it (apps/engine/src/wakeups/withdrawn-fires.ts).
 * A fire past its first attempt is left alone: an attempt of it ended, so its instant was acted
 * on (a retry runs as prepared).
 * Locked on MySQL, so a claim (SKIP LOCKED) passes them by and an engine's DISPATCHED mark waits
 * for the commit, then finds them gone or CANCELLED and drops them. One it had sent is aborted at
 * its executor once the caller tells the engines (RunWakeups.cancelled) after the commit. Fires
 * whose instant is at or before `after` run as prepared, and so do manual, backfill and retry
 * runs (explicit requests).
 */
export async function withdrawPreparedFires(
  manager: EntityManager,
  input: { tenantId: string; taskIds: readonly number[]; after: number; now: number; error: string },
): Promise<WithdrawnFire[]> {
  if (input.taskIds.length === 0) return [];
  const lock = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, task_id, state, engine_group, scheduled_at,
            CASE WHEN ${stateIn(WITHDRAW_PREPARED_FIRES, ['DISPATCHED', 'ACCEPTED'])} OR ${keepsSentMark()} THEN 1 ELSE 0 END AS may_be_sent FROM runs
      WHERE tenant_id = ? AND task_id IN (${placeholders(input.taskIds.length)}) AND cause = 'SCHEDULE' AND scheduled_at > ? AND attempt = 1
        AND ${stateIn(WITHDRAW_PREPARED_FIRES)}
      ORDER BY id ${lock}`,
    [input.tenantId, ...input.taskIds, input.after],
  );
  const fires: WithdrawnFire[] = rows.map((r) => ({ runId: num(r.id), taskId: num(r.task_id), engineGroup: String(r.engine_group), scheduledAt: num(r.scheduled_at), mayBeSent: num(r.may_be_sent) === 1 }));
  const neverSent = (states: readonly string[]) => rows.filter((r, i) => !fires[i].mayBeSent && states.includes(String(r.state))).map((r) => num(r.id));
  for (const part of chunks(neverSent(['PENDING']))) {
    await execute(manager, `DELETE FROM runs WHERE id IN (${placeholders(part.length)}) AND state = 'PENDING' AND NOT ${keepsSentMark()}`, part);
  }
  for (const part of chunks(neverSent(['RETRY_WAIT', 'CLAIMED']))) {
    const freedKey = caseById(part, (id) => id, (id) => `w:${id}`);
    await execute(
      manager,
      `UPDATE runs SET state = 'CANCELLED', error = ?, fire_key = ${freedKey.sql}, finished_at = ?, updated_at = ?, ${STAMPS_BY_CANCEL}
        WHERE id IN (${placeholders(part.length)}) AND ${stateIn(WITHDRAW_PREPARED_FIRES, ['RETRY_WAIT', 'CLAIMED'])} AND NOT ${keepsSentMark()}`,
      [input.error, ...freedKey.params, input.now, input.now, ...stampsByCancelParams(input.now), ...part],
    );
  }
  for (const part of chunks(fires.filter((f) => f.mayBeSent))) {
    await execute(
      manager,
      `UPDATE runs SET state = 'CANCELLED', error = ?, withdrawal = 'UNSETTLED', finished_at = ?, updated_at = ?, ${STAMPS_BY_CANCEL}
        WHERE id IN (${placeholders(part.length)}) AND ${stateIn(WITHDRAW_PREPARED_FIRES)}`,
      [input.error, input.now, input.now, ...stampsByCancelParams(input.now), ...part.map((f) => f.runId)],
    );
  }
  return fires;
}
