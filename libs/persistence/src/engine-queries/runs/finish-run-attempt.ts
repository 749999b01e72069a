import type { EntityManager } from 'typeorm';
import type { RunState, TimelineClock } from '@baton/domain';
import { execute } from '../sql';
import { runWrite, stateIn, assertTarget } from '../../runs/run-writes';
import type { AckTimes } from './ack-times';

/** Its moves, checked against the run state machine (run-writes.spec.ts); callers narrow `from`. */
export const FINISH_RUN_ATTEMPT = runWrite('finishRunAttempt', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'], ['SUCCEEDED', 'FAILED', 'TIMED_OUT']);

/**
 * An attempt ends for good: DISPATCHED/ACCEPTED → SUCCEEDED | FAILED | TIMED_OUT.
 *
 *   UPDATE runs SET state = ?, result = ?, error = ?, started_at = COALESCE(?, started_at),
 *                   finished_at = ?, finished_clock = ?, deadline_at = NULL, updated_at = ?
 *                   [, dispatched_at = ?, accepted_at = ?]
 *    WHERE id = ? AND attempt = ? AND state IN (…) [AND claimed_by = ?] [AND deadline_at < ?]
 *
 * The guard is the whole point: callbacks are retried and may reach several engines, the
 * watchdog may time the run out at the same moment, an executor may come back after being
 * declared down. Exactly one of them matches the row; every other one gets false and changes
 * nothing (the callback API answers 409). `attempt` keeps a late callback of attempt n from
 * ending attempt n + 1. The optional guards: the dispatcher ends an attempt only while it still
 * holds the run (`claimed_by`), the watchdog only if the deadline has really passed (an ack that
 * re-based it after the scan wins). `resultJson` is JSON text (or null). `ack`: the executor's 202
 * the engine held back (AckTimes), written here instead of as an ACCEPTED mark of its own.
 * `finishedClock`: whose clock `finishedAt` is (the executor's report, or the engine's decision).
 */
export async function finishRunAttempt(
  manager: EntityManager,
  input: {
    runId: number;
    attempt: number;
    from: readonly RunState[];
    to: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT';
    resultJson: string | null;
    error: string | null;
    startedAt: number | null;
    finishedAt: number;
    finishedClock: TimelineClock;
    now: number;
    /** Extra guards: only while this engine holds the run; only if the deadline (still) passed. */
    claimedBy?: string;
    deadlineBefore?: number;
    ack?: AckTimes | null;
  },
): Promise<boolean> {
  const extra = `${input.claimedBy !== undefined ? 'AND claimed_by = ? ' : ''}${input.deadlineBefore !== undefined ? 'AND deadline_at < ?' : ''}`;
  const extraParams = [...(input.claimedBy !== undefined ? [input.claimedBy] : []), ...(input.deadlineBefore !== undefined ? [input.deadlineBefore] : [])];
  assertTarget(FINISH_RUN_ATTEMPT, input.to);
  const ack = input.ack ? ', dispatched_at = ?, accepted_at = ?' : '';
  const ackParams = input.ack ? [input.ack.sentAt, input.ack.acceptedAt] : [];
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = ?, result = ?, error = ?, started_at = COALESCE(?, started_at),
                     finished_at = ?, finished_clock = ?, deadline_at = NULL, updated_at = ?${ack}
      WHERE id = ? AND attempt = ? AND ${stateIn(FINISH_RUN_ATTEMPT, input.from)} ${extra}`,
    [input.to, input.resultJson, input.error, input.startedAt, input.finishedAt, input.finishedClock, input.now, ...ackParams, input.runId, input.attempt, ...extraParams],
  );
  return affected > 0;
}
