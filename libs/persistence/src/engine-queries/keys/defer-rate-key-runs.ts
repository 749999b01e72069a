import type { EntityManager } from 'typeorm';
import { caseById, execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const DEFER_RATE_KEY_RUNS = runWrite('deferRateKeyRuns', ['CLAIMED'], 'PENDING');

/**
 * Claimed runs whose rate key has no token left go back to the database, each due when a token
 * will be there for it (its key's next token, one token's time apart for the ones after it):
 *
 *   UPDATE runs SET state = 'PENDING', instant_at = COALESCE(instant_at, due_at), due_at = CASE id WHEN … END,
 *                   late_from_at = CASE id WHEN … END, claimed_by = NULL, lease_until = NULL, error = ?, updated_at = ?
 *    WHERE id IN (…) AND state = 'CLAIMED' AND claimed_by = ?
 *
 * PENDING with a later due_at, not in any engine's memory: any engine claims it then, and takes
 * a token then. `error` says why it waits (the console shows it); instant_at keeps the instant it
 * was due at (set before due_at: see deferRunDispatch on the order of SET). late_from_at is its
 * token's time too, kept when a dispatch back-off later moves due_at: the wait for a token is the
 * task's own rule, so its lateness counts from there, not from the fire time (find-late-runs.ts).
 * It gets the CASE of its own, not `= due_at`: MariaDB would read the new due_at, SQLite the old.
 */
export async function deferRateKeyRuns(manager: EntityManager, input: { runs: ReadonlyArray<{ id: number; dueAt: number }>; owner: string; reason: string; now: number }): Promise<number> {
  if (input.runs.length === 0) return 0;
  const due = caseById(input.runs, (r) => r.id, (r) => r.dueAt);
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'PENDING', instant_at = COALESCE(instant_at, due_at), due_at = ${due.sql}, late_from_at = ${due.sql}, claimed_by = NULL, lease_until = NULL, error = ?, updated_at = ?
      WHERE id IN (${placeholders(input.runs.length)}) AND ${stateIn(DEFER_RATE_KEY_RUNS)} AND claimed_by = ?`,
    [...due.params, ...due.params, input.reason, input.now, ...input.runs.map((r) => r.id), input.owner],
  );
  return affected;
}
