import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { keepsSentMark } from '../../runs/sent-marks';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const GIVE_UP_LATE_RUN = runWrite('giveUpLateRun', ['PENDING', 'CLAIMED', 'RETRY_WAIT'], 'FAILED');

/**
 * A run of a GIVE_UP task (tasks.on_start_late) that the watchdog's START_LATE scan found not sent
 * within its start deadline ends FAILED, for good (not retried: nothing ran), its lease released
 * and its late mark set — the START_LATE election and the end in one guarded write:
 *
 *   UPDATE runs SET state = 'FAILED', error = ?, late_alarmed_at = ?, claimed_by = NULL, lease_until = NULL,
 *                   deadline_at = NULL, finished_at = ?, finished_clock = 'engine', updated_at = ?
 *    WHERE id = ? AND attempt = ? AND state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')
 *      AND late_alarmed_at IS NULL AND NOT (dispatched_at IS NOT NULL OR executor_id IS NOT NULL)
 *      AND COALESCE(late_from_at, scheduled_at) = ?
 *
 * Only a run provably never sent: not DISPATCHED or ACCEPTED (it may be running), and no sent
 * mark kept (keepsSentMark: a run its dead engine had sent, or whose dispatch got no answer — the
 * rule a withdrawal uses too). A CLAIMED run held in an engine (every
 * executor full) is given up too: that engine's DISPATCHED mark is guarded on CLAIMED and its own
 * claim, so it then drops the run instead of sending it. `late_from_at`/`scheduled_at` as the
 * scan read them: a run its keys admitted since (a later instant to count from) is not late any
 * more. Every engine of the group finds the same late runs; the row lock and the state guard let
 * one of them end each run, and the other's write matches nothing (false).
 */
export async function giveUpLateRun(manager: EntityManager, input: { runId: number; attempt: number; lateFrom: number; error: string; now: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'FAILED', error = ?, late_alarmed_at = ?, claimed_by = NULL, lease_until = NULL,
                     deadline_at = NULL, finished_at = ?, finished_clock = 'engine', updated_at = ?
      WHERE id = ? AND attempt = ? AND ${stateIn(GIVE_UP_LATE_RUN)}
        AND late_alarmed_at IS NULL AND NOT ${keepsSentMark()}
        AND COALESCE(late_from_at, scheduled_at) = ?`,
    [input.error, input.now, input.now, input.now, input.runId, input.attempt, input.lateFrom],
  );
  return affected > 0;
}
