import type { EntityManager } from 'typeorm';
import { caseById, placeholders } from '../sql';
import { sendUpdateAhead } from '../riders';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CLAIM_UNADMITTED_RUNS = runWrite('claimUnadmittedRuns', ['PENDING'], 'CLAIMED');

/**
 * Runs a wake-up named whose rows the engine has (carried by the wake-up, or read by id) and that
 * their key must admit, claimed in the admission's own transaction (KeyAdmissions.admit), each
 * only as it was read:
 *
 *   UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
 *    WHERE id IN (…) AND tenant_id = ? AND engine_group = ? AND state = 'PENDING' AND run_key IS NULL
 *      AND due_at = CASE id WHEN … END   -- `= ?` when they share one due time
 *
 * Answers how many it moved: all of them, and the rows the engine has are the rows it claimed. A
 * run that left PENDING and came back since it was read either was admitted to its key meanwhile
 * (`run_key` set) or went back with a later due time (a rate key's deferral moves due_at, and
 * instant_at and late_from_at with it; a give-back, releaseRuns, changes nothing a claim reads).
 * Fewer, and some other claim took one first: the caller rolls the transaction back and claims
 * them as claimNamedRuns does, reading back which it got.
 *
 * Why: claimNamedRuns is an autocommitted UPDATE (a commit of its own, waiting for the log's
 * flush) and a read of the rows back, then the admission's two round trips: a keyed run's claim
 * by id took 8.3 ms at the median, 4.6 of them that claim (timed in an engine, bench flooded-key,
 * 2026-12-06), while a run with no key went out on its DISPATCHED mark. Sent ahead, this UPDATE
 * rides in the packet of the keys' locks: the claim and the admission are one transaction of two
 * round trips. Its row locks come before the keys' row locks, as in a claim turn's transaction.
 */
export function claimUnadmittedRuns(
  manager: EntityManager,
  input: { runs: ReadonlyArray<{ id: number; dueAt: number }>; tenantId: string; engineGroup: string; owner: string; leaseUntil: number; now: number },
): Promise<number> {
  const due = caseById(input.runs, (r) => r.id, (r) => r.dueAt);
  return sendUpdateAhead(
    manager,
    `UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
      WHERE id IN (${placeholders(input.runs.length)}) AND tenant_id = ? AND engine_group = ? AND ${stateIn(CLAIM_UNADMITTED_RUNS)} AND run_key IS NULL
        AND due_at = ${due.sql}`,
    [input.owner, input.leaseUntil, input.now, ...input.runs.map((r) => r.id), input.tenantId, input.engineGroup, ...due.params],
  );
}
