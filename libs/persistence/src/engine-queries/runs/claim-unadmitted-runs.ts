import type { EntityManager } from 'typeorm';
import { placeholders } from '../sql';
import { sendUpdateAhead } from '../riders';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CLAIM_UNADMITTED_RUNS = runWrite('claimUnadmittedRuns', ['PENDING'], 'CLAIMED');

/**
 * Runs a wake-up named whose rows the engine has (carried by the wake-up, or read by id) and that
 * their key must admit, claimed in the admission's own transaction (KeyAdmissions.admit):
 *
 *   UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
 *    WHERE id IN (…) AND tenant_id = ? AND engine_group = ? AND due_at <= ? AND state = 'PENDING' AND run_key IS NULL
 *
 * Answers how many it moved: all of them, and the rows the engine has are the rows it claimed —
 * none has been admitted to its key since they were read (`run_key IS NULL`), and nothing else in
 * them changes while a run is PENDING. Fewer, and some other claim took one first: the caller
 * rolls the transaction back and claims them as claimNamedRuns does, reading back which it got.
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
  input: { ids: readonly number[]; tenantId: string; engineGroup: string; dueBefore: number; owner: string; leaseUntil: number; now: number },
): Promise<number> {
  return sendUpdateAhead(
    manager,
    `UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
      WHERE id IN (${placeholders(input.ids.length)}) AND tenant_id = ? AND engine_group = ? AND due_at <= ? AND ${stateIn(CLAIM_UNADMITTED_RUNS)} AND run_key IS NULL`,
    [input.owner, input.leaseUntil, input.now, ...input.ids, input.tenantId, input.engineGroup, input.dueBefore],
  );
}
