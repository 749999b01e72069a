import type { EntityManager } from 'typeorm';
import { caseById, execute, num, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const MARK_RUNS_DISPATCHED = runWrite('markRunsDispatched', ['CLAIMED', 'PENDING'], 'DISPATCHED');

export interface RunToDispatch {
  runId: number;
  attempt: number;
  executorId: number;
  /** dispatched_at + the task's timeout. */
  deadlineAt: number;
  /** Read by a wake-up and not claimed (readNamedRuns): this mark claims it, from PENDING, with the lease `leaseUntil`. */
  claiming?: boolean;
}

/**
 * CLAIMED → DISPATCHED for the runs a node is about to POST, written BEFORE the POSTs leave —
 * for all of them in one statement (the dispatcher batches the runs its slots start together);
 * PENDING → DISPATCHED, with the lease, for the runs a wake-up named and this node read without
 * claiming them (`claiming`: readNamedRuns), the mark being their claim:
 *
 *   UPDATE runs SET state = 'DISPATCHED',
 *                   executor_id = <by id>, deadline_at = <by id>,
 *                   dispatched_at = ?, accepted_at = NULL, error = NULL, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ? AND attempt = <by id>
 *   -- with runs to claim: SET lease_until = CASE WHEN state = 'PENDING' THEN ? ELSE lease_until END, claimed_by = ?, …
 *   --   WHERE id IN (…) AND ((state = 'CLAIMED' AND claimed_by = ?) OR (id IN (<to claim>) AND state = 'PENDING' AND due_at <= <claimDueBefore>)) AND attempt = …
 *   -- only when fewer rows moved than asked (some run was taken over meanwhile):
 *   SELECT id FROM runs WHERE id IN (…) AND state = 'DISPATCHED' AND claimed_by = ? AND dispatched_at = ?
 *   -- <by id>: each row's own value (caseById: `?` when all rows share it)
 *
 * Why so:
 * - `claimed_by = me`: only the lease holder may send. If this node stalled and a survivor took
 *   a run over (claimed_by changed, or the run went back to PENDING), its row does not match
 *   and the run is dropped from memory instead of being fired twice.
 * - written before sending: if the engine dies after the POST, the row says which executor
 *   has it (the takeover re-sends there first; the SDK de-duplicates by run and attempt).
 * - `deadline_at = dispatched_at + timeout` starts the attempt's clock for the watchdog now, so
 *   a run whose ack is lost still times out (DISPATCHED → TIMED_OUT).
 * - `error = NULL`: a run that waited says why in its error (a rate key's token, a dispatch
 *   back-off, its last attempt's failure in RETRY_WAIT) only while it waits; sent, its attempt has
 *   no error yet. Cleared here, in the write that ends the wait, not by a statement of its own.
 *   Unconditional, not `CASE WHEN error IS NOT NULL`: MariaDB writes only the columns whose value
 *   changes (NULL to NULL is none) and SQLite rewrites the row anyway, so a run that never waited
 *   pays nothing for it.
 * - one statement for many runs: a run's own UPDATE in its own transaction cost ~5 round trips
 *   (SET TRANSACTION, BEGIN, UPDATE, COMMIT…) and was the largest share of the engine's CPU in a
 *   burst (docs/BENCHMARKS.md); the primary-key IN list keeps it a point lookup per run. The one
 *   write needs no transaction around it (autocommitted: committed when its answer comes; a mark
 *   whose answer is lost is read back, read-back-dispatch-marks.ts). The
 *   follow-up SELECT, when some run did not move, reads the committed rows: a run of this batch
 *   is DISPATCHED by this node at `now` only if this UPDATE moved it (each run is marked once per
 *   attempt), and one taken over since is rightly not sent.
 * Returns the ids that moved.
 */
export async function markRunsDispatched(
  manager: EntityManager,
  input: {
    nodeId: string;
    now: number;
    runs: readonly RunToDispatch[];
    /** The lease of the runs this mark claims (`claiming`). */
    leaseUntil?: number;
    /**
     * The latest due_at a run this mark claims may have (default `now`): the latest instant this
     * node holds one of them for. A run sent ahead of its instant (to an executor that starts it
     * then) is marked before it; one given back meanwhile with a later due_at (a dispatch back-off)
     * is not claimed.
     */
    claimDueBefore?: number;
  },
): Promise<Set<number>> {
  const { runs, nodeId, now } = input;
  if (runs.length === 0) return new Set();
  const ids = runs.map((r) => r.runId);
  const byId = (pick: (r: RunToDispatch) => number) => caseById(runs, (r) => r.runId, pick);
  const executor = byId((r) => r.executorId);
  const deadline = byId((r) => r.deadlineAt);
  const attempt = byId((r) => r.attempt);
  const claiming = runs.filter((r) => r.claiming).map((r) => r.runId);
  if (claiming.length > 0 && input.leaseUntil === undefined) throw new Error('markRunsDispatched: runs to claim need a lease');
  // Runs read by a wake-up are claimed here (PENDING, due): the lease and holder are set before
  // `state` in the SET list, because MySQL evaluates it left to right (SQLite reads old values).
  const claimSet = claiming.length === 0 ? '' : `lease_until = CASE WHEN state = 'PENDING' THEN ? ELSE lease_until END, claimed_by = ?, `;
  const claimWhere = claiming.length === 0 ? '' : ` OR (id IN (${placeholders(claiming.length)}) AND ${stateIn(MARK_RUNS_DISPATCHED, ['PENDING'])} AND due_at <= ?)`;
  const { affected } = await execute(
    manager,
    `UPDATE runs SET ${claimSet}state = 'DISPATCHED', executor_id = ${executor.sql}, deadline_at = ${deadline.sql},
                     dispatched_at = ?, accepted_at = NULL, error = NULL, updated_at = ?
      WHERE id IN (${placeholders(ids.length)}) AND ((${stateIn(MARK_RUNS_DISPATCHED, ['CLAIMED'])} AND claimed_by = ?)${claimWhere}) AND attempt = ${attempt.sql}`,
    [
      ...(claiming.length === 0 ? [] : [input.leaseUntil, nodeId]),
      ...executor.params,
      ...deadline.params,
      now,
      now,
      ...ids,
      nodeId,
      ...(claiming.length === 0 ? [] : [...claiming, Math.max(now, input.claimDueBefore ?? now)]),
      ...attempt.params,
    ],
  );
  if (affected === runs.length) return new Set(ids);
  if (affected === 0) return new Set();
  const { rows } = await execute<{ id: unknown }>(
    manager,
    `SELECT id FROM runs WHERE id IN (${placeholders(ids.length)}) AND state = 'DISPATCHED' AND claimed_by = ? AND dispatched_at = ?`,
    [...ids, nodeId, now],
  );
  return new Set(rows.map((r) => num(r.id)));
}
