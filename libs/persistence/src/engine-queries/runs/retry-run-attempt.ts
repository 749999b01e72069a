import type { EntityManager } from 'typeorm';
import { HANDED_BACK, type RunState, type TimelineClock } from '@baton/domain';
import { isUniqueViolation } from '../../errors';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import type { AckTimes } from './ack-times';

/** Its moves, checked against the run state machine (run-writes.spec.ts); callers narrow `from`. From RETRY_WAIT it is an attempt change, not a move. */
export const RETRY_RUN_ATTEMPT = runWrite('retryRunAttempt', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'], 'RETRY_WAIT', { attemptChangeFrom: ['RETRY_WAIT'] });

/**
 * A failed (or timed-out, or orphaned) attempt with attempts left: the SAME run row goes to
 * RETRY_WAIT as attempt + 1, due after the task's backoff, its lease and executor released.
 *
 *   UPDATE runs SET state = 'RETRY_WAIT', attempt = attempt + 1, due_at = ?, instant_at = NULL, late_from_at = ?,
 *                   claimed_by = NULL, lease_until = NULL, executor_id = NULL, dispatched_at = NULL,
 *                   accepted_at = NULL, deadline_at = NULL, started_at = NULL, finished_at = NULL,
 *                   result = NULL, error = ?, progress = NULL, updated_at = ?
 *    WHERE id = ? AND attempt = ? AND state IN (…) [AND claimed_by = ?] [AND deadline_at < ?]
 *
 * A retry in place is what keeps a chain from re-running: only this step runs again, its
 * parents stay SUCCEEDED and its children are fired once it finally succeeds (same flow, same
 * fire key). Guarded on state and attempt like finishRunAttempt; `attempt = attempt + 1` in SQL
 * so the increment is the row's, not a value read earlier. The new attempt's instant is its
 * due_at (instant_at NULL): a dispatch back-off of the last attempt does not carry over. Its
 * lateness counts from that instant too (late_from_at): the backoff is the task's own wait, and a
 * rate key's token or a key's place the last attempt waited for does not carry over — with the
 * instant in late_from_at, START_LATE's scan does not read a retry until that instant is a start
 * deadline old (find-late-runs.ts), however many retries a tenant has waiting.
 *
 * The row is the new attempt's from here: started_at and finished_at are cleared (the ending
 * attempt's are in run_attempts, one place), so what the next attempt reports is its own — an
 * interim callback writes started_at only where none is (recordRunProgress) — and the console
 * shows no times of an attempt that has not started or finished beside `attempt: 2`, nor a
 * Finished step before its Dispatched. The failed attempt's error stays while the retry waits:
 * it is why it waits (as a rate key's or a dispatch back-off's reason is), and the DISPATCHED
 * mark that sends the retry clears it (markRunsDispatched). Its log lines carry the attempt
 * number for good.
 *
 * The ending attempt is first copied to run_attempts under the same guard (its timeline, its
 * executor, how it ended; its start as its end reports it, else as its interim callback wrote it
 * on the row: a timeout the engine decides reports none; its end and whose clock stamped it), and the first attempt's dispatch time is
 * kept in first_dispatched_at: the console shows every attempt, and lateness stays the first
 * attempt's (the first not handed back: see below).
 *
 *   INSERT INTO run_attempts (…) SELECT tenant_id, id, attempt, <endedAs>, … FROM runs WHERE <the guard>
 *
 * Its state is how it ended (`endedAs`: FAILED, TIMED_OUT), not the row's state at its end: that
 * was DISPATCHED when the engine held back its ACCEPTED mark, and a failed attempt read as sent.
 *
 * `ack`: the executor's 202 the engine held back (AckTimes): the copied attempt gets its
 * dispatched_at and accepted_at from it, as if its ACCEPTED mark had been written.
 *
 * `endedAs: 'HANDED_BACK'`: an attempt sent ahead that its executor provably never started
 * (it lost contact with the engines: the sent-ahead lease of docs/EXECUTOR-PROTOCOL.md). The next
 * attempt keeps the run's instant and lateness origin — it is the same start, sent again — so instead:
 *
 *   UPDATE runs SET state = 'RETRY_WAIT', attempt = attempt + 1, instant_at = COALESCE(instant_at, due_at), due_at = ?,
 *                   hand_backs = hand_backs + 1, …   -- first_dispatched_at untouched
 *
 * (late_from_at untouched; instant_at before due_at, as deferRunDispatch explains). Its run_attempts
 * row says HANDED_BACK: the retry policy does not count it (RunOutcomes). Nor does lateness: the
 * attempt never started, and its dispatch — its instant, for a run sent ahead — is not the run's;
 * the run is as late as the attempt sent after it (hand_backs tells firstAttemptLateness which).
 */
export async function retryRunAttempt(
  manager: EntityManager,
  input: {
    runId: number;
    attempt: number;
    from: readonly RunState[];
    dueAt: number;
    error: string | null;
    /** How the attempt ended: its state in run_attempts. */
    endedAs: 'FAILED' | 'TIMED_OUT' | typeof HANDED_BACK;
    startedAt: number | null;
    finishedAt: number;
    /** Whose clock finishedAt is (run_attempts.finished_clock). */
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
  const guard = `id = ? AND attempt = ? AND ${stateIn(RETRY_RUN_ATTEMPT, input.from)} ${extra}`;
  const guardParams = [input.runId, input.attempt, ...extraParams];
  const sentAt = input.ack?.sentAt ?? null;
  // The ending attempt, kept before the row moves on (the same guard: only an attempt this call ends).
  let copied: number;
  try {
    ({ affected: copied } = await execute(
      manager,
      `INSERT INTO run_attempts (tenant_id, run_id, attempt, state, executor_id, due_at, dispatched_at, accepted_at, started_at, finished_at, finished_clock, error, ended_at)
       SELECT tenant_id, id, attempt, ?, executor_id, due_at, COALESCE(?, dispatched_at), COALESCE(?, accepted_at), COALESCE(?, started_at), ?, ?, ?, ? FROM runs WHERE ${guard}`,
      [input.endedAs, sentAt, input.ack?.acceptedAt ?? null, input.startedAt, input.finishedAt, input.finishedClock, input.error, input.now, ...guardParams],
    ));
  } catch (err) {
    // Another transaction ended this attempt first (a callback and the watchdog's timeout, say):
    // both read the row before either committed, and its copy, committed while this one waited on
    // it, holds the attempt's key. The run has moved on, as a guard that matches nothing says. Only
    // the statement failed, so the caller's transaction goes on; it failed whole before (503s in
    // a storm of failing runs).
    if (isUniqueViolation(err)) return false;
    throw err;
  }
  // The guard matched nothing: this attempt ended already (a second copy of its callback, sent to
  // another engine while the first was slow to answer: 15 % of the callbacks of a storm of failing
  // runs). Nothing was copied, so nothing to move or take back.
  if (copied === 0) return false;
  // A retry starts at its own instant (its due time), and keeps the dispatch of the first attempt
  // that counts; an attempt handed back keeps the run's instant and is counted as handed back, its
  // dispatch not kept: it never started, and the run's lateness is the next attempt's.
  const instant =
    input.endedAs === HANDED_BACK
      ? { sql: 'instant_at = COALESCE(instant_at, due_at), due_at = ?, hand_backs = hand_backs + 1', params: [input.dueAt] }
      : { sql: 'due_at = ?, instant_at = NULL, late_from_at = ?, first_dispatched_at = COALESCE(first_dispatched_at, ?, dispatched_at)', params: [input.dueAt, input.dueAt, sentAt] };
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'RETRY_WAIT', attempt = attempt + 1, ${instant.sql},
                     claimed_by = NULL, lease_until = NULL, executor_id = NULL, dispatched_at = NULL,
                     accepted_at = NULL, deadline_at = NULL, started_at = NULL, finished_at = NULL,
                     result = NULL, error = ?, progress = NULL, updated_at = ?
      WHERE id = ? AND attempt = ? AND ${stateIn(RETRY_RUN_ATTEMPT, input.from)} ${extra}`,
    [...instant.params, input.error, input.now, ...guardParams],
  );
  // The row moved on between the two statements (READ COMMITTED reads without locking): the copy is not an attempt this call ended.
  if (affected === 0) await execute(manager, 'DELETE FROM run_attempts WHERE run_id = ? AND attempt = ? AND ended_at = ?', [input.runId, input.attempt, input.now]);
  return affected > 0;
}
