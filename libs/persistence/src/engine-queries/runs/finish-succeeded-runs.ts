import type { EntityManager } from 'typeorm';
import type { RunState, TimelineClock } from '@baton/domain';
import { caseById, dialectOf, execute, num, placeholders } from '../sql';
import { NotAllSucceededError } from './not-all-succeeded-error';
import { runWrite, stateIn } from '../../runs/run-writes';
import type { AckTimes } from './ack-times';

/** Its move, checked against the run state machine (run-writes.spec.ts); callers narrow `from`. */
export const FINISH_SUCCEEDED_RUNS = runWrite('finishSucceededRuns', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'], 'SUCCEEDED');

export interface SucceededAttempt {
  runId: number;
  attempt: number;
  /** JSON text, or null. */
  resultJson: string | null;
  startedAt: number | null;
  finishedAt: number;
  /** Whose clock finishedAt is: the executor's report, or the engine's stamp of an end reported without a time. */
  finishedClock: TimelineClock;
  /** The executor's 202, held back by the engine: written here instead of as an ACCEPTED mark. */
  ack?: AckTimes | null;
}

/**
 * Many attempts end SUCCEEDED at once — the success callbacks that reach an engine together —
 * in two statements instead of one UPDATE each:
 *
 *   SELECT id, state, attempt FROM runs WHERE id IN (…) [FOR UPDATE]
 *   UPDATE runs SET state = 'SUCCEEDED', result = <by id>, error = NULL,
 *                   started_at = COALESCE(<by id>, started_at), finished_at = <by id>, finished_clock = <by id>,
 *                   deadline_at = NULL, updated_at = ?
 *                   [, dispatched_at = COALESCE(<by id>, dispatched_at), accepted_at = COALESCE(<by id>, accepted_at)]
 *    WHERE id IN (…the rows that matched…) AND state IN (…) AND attempt = <by id>
 *   -- <by id>: each row's own value (caseById: `?` when all rows share it)
 *
 * Why so: in a sustained load the engines dispatched 3,250 runs/s but recorded only 1,400–2,000
 * callbacks/s, one guarded UPDATE per run being most of the database's work (bench general log:
 * 1,000 of a burst's 2,163 statements). The guard is finishRunAttempt's — state in `from`,
 * the same attempt — checked on rows locked by the SELECT (MySQL; SQLite has one writer), so the
 * rows that move are exactly those that matched: a duplicate callback, a watchdog verdict or a
 * callback on another engine that got there first leaves its row unmatched, and that caller is
 * told so (409). An attempt listed twice moves once. Returns run id → the attempt that moved.
 * The bracketed part only when some attempt brings the 202 its engine held back (AckTimes; null
 * for the others, which keep what their ACCEPTED mark wrote).
 *
 * `expectAll`: the caller has just read these runs in a `from` state at these attempts (the
 * callbacks' lookup), so nearly always every one moves — the UPDATE alone, without the SELECT's
 * round trip, guarded the same way. When all moved, that is the exact answer; when fewer did,
 * which ones is not known, so NotAllSucceededError is thrown: the caller rolls its transaction back
 * (nothing moved) and asks again without `expectAll`.
 */
export async function finishSucceededRuns(
  manager: EntityManager,
  input: { from: readonly RunState[]; now: number; attempts: readonly SucceededAttempt[]; expectAll?: boolean },
): Promise<Map<number, number>> {
  const ids = [...new Set(input.attempts.map((a) => a.runId))];
  const taken = new Map<number, number>();
  if (ids.length === 0) return taken;
  const matched: SucceededAttempt[] = [];
  if (input.expectAll) {
    for (const a of input.attempts) {
      if (taken.has(a.runId)) continue;
      taken.set(a.runId, a.attempt);
      matched.push(a);
    }
  } else {
    const forUpdate = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
    const { rows } = await execute<{ id: unknown; state: unknown; attempt: unknown }>(
      manager,
      `SELECT id, state, attempt FROM runs WHERE id IN (${placeholders(ids.length)}) ${forUpdate}`,
      ids,
    );
    const current = new Map(rows.map((r) => [num(r.id), { state: r.state as RunState, attempt: num(r.attempt) }]));
    for (const a of input.attempts) {
      const row = current.get(a.runId);
      if (!row || taken.has(a.runId) || row.attempt !== a.attempt || !input.from.includes(row.state)) continue;
      taken.set(a.runId, a.attempt);
      matched.push(a);
    }
    if (matched.length === 0) return taken;
  }
  const byId = (pick: (a: SucceededAttempt) => unknown) => caseById(matched, (a) => a.runId, pick);
  const result = byId((a) => a.resultJson);
  const started = byId((a) => a.startedAt);
  const finished = byId((a) => a.finishedAt);
  const clock = byId((a) => a.finishedClock);
  const attempt = byId((a) => a.attempt);
  const acks = ackColumns(matched, byId);
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'SUCCEEDED', result = ${result.sql}, error = NULL, started_at = COALESCE(${started.sql}, started_at),
                     finished_at = ${finished.sql}, finished_clock = ${clock.sql}, deadline_at = NULL, updated_at = ?${acks.sql}
      WHERE id IN (${placeholders(matched.length)}) AND ${stateIn(FINISH_SUCCEEDED_RUNS, input.from)} AND attempt = ${attempt.sql}`,
    [...result.params, ...started.params, ...finished.params, ...clock.params, input.now, ...acks.params, ...matched.map((a) => a.runId), ...attempt.params],
  );
  if (input.expectAll && affected !== matched.length) throw new NotAllSucceededError(affected, matched.length);
  // The rows are locked: anything else means the guard and the lock disagree — refuse the batch (its caller retries each alone).
  if (affected !== matched.length) throw new Error(`finishSucceededRuns: ${affected} of ${matched.length} matched rows moved`);
  return taken;
}

/** The SET part writing held-back 202s (`, dispatched_at = …, accepted_at = …`), empty when none of the attempts has one. */
function ackColumns(
  matched: readonly SucceededAttempt[],
  byId: (pick: (a: SucceededAttempt) => unknown) => { sql: string; params: unknown[] },
): { sql: string; params: unknown[] } {
  if (!matched.some((a) => a.ack)) return { sql: '', params: [] };
  const sent = byId((a) => a.ack?.sentAt ?? null);
  const accepted = byId((a) => a.ack?.acceptedAt ?? null);
  return {
    sql: `, dispatched_at = COALESCE(${sent.sql}, dispatched_at), accepted_at = COALESCE(${accepted.sql}, accepted_at)`,
    params: [...sent.params, ...accepted.params],
  };
}
