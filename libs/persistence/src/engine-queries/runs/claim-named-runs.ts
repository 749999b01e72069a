import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';
import { claimedRunColumns, claimedRunRow, type ClaimedRunRow } from './claim-due-runs';
import { claimedRunTask, claimedRunTaskColumns, type ClaimedRunTask } from './find-claimed-run-tasks';

/** Its move, checked against the run state machine (run-writes.spec.ts). */
export const CLAIM_NAMED_RUNS = runWrite('claimNamedRuns', ['PENDING', 'RETRY_WAIT'], 'CLAIMED');

export interface ClaimNamedRunsInput {
  /** Runs a wake-up named (a manual trigger's): a handful, bounded by the caller. */
  ids: readonly number[];
  /** Only the signing tenant's runs, in a group this engine serves. */
  tenantId: string;
  engineGroup: string;
  /** Only runs due at or before this (now + look-ahead). */
  dueBefore: number;
  /** This engine's node id (claimed_by). */
  owner: string;
  /**
   * The lease, and this claim's token: the read names the rows by it, so it must differ from
   * every other lease this node writes (RunClaims makes its leases strictly increasing).
   */
  leaseUntil: number;
  now: number;
}

/**
 * A claim of runs named by id, outside any transaction: a manual trigger's wake-up names its run,
 * so the engine need not search the tenant's range for it.
 *
 *   UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
 *    WHERE id IN (…) AND tenant_id = ? AND engine_group = ? AND due_at <= ? AND state IN ('PENDING', 'RETRY_WAIT')
 *   -- then, when it moved any, the rows with their tasks:
 *   SELECT r.id, …, t.id AS t_id, … FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
 *    WHERE r.id IN (…) AND r.claimed_by = ? AND r.lease_until = ? AND r.state = 'CLAIMED'
 *
 * Why this shape: a claim turn (claimDueRuns) is SET TRANSACTION, START, the ranges' SELECT … FOR
 * UPDATE, the UPDATE, the tasks' read and COMMIT — six round trips, the largest stage of a run
 * now on the engine (median 3–5 ms of ~15, 10–45 ms at p99 on 2 shared cores; bench run-now).
 * Here it is two. The UPDATE by primary key is the claim: atomic on its own, its guards (tenant, group, due,
 * claimable state) decide, and a peer or a claim turn that got a row first leaves it unmatched
 * (MySQL waits for that row's lock, then finds it CLAIMED; no gap locks on primary-key points).
 * Which rows this claim won is read back by the lease, unique to it: a row another claim of this
 * node took carries another lease. A row this claim moved stays this node's until it commits
 * it elsewhere, so the read sees it as written. The tasks come in the same read, a join (no lock
 * is taken, so none collides with the planner's task claim); a run whose task was deleted comes
 * with `task` null.
 */
export async function claimNamedRuns(manager: EntityManager, input: ClaimNamedRunsInput): Promise<Array<{ run: ClaimedRunRow; task: ClaimedRunTask | null }>> {
  if (input.ids.length === 0) return [];
  const ids = placeholders(input.ids.length);
  const { affected } = await execute(
    manager,
    `UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ?, updated_at = ?
      WHERE id IN (${ids}) AND tenant_id = ? AND engine_group = ? AND due_at <= ? AND ${stateIn(CLAIM_NAMED_RUNS)}`,
    [input.owner, input.leaseUntil, input.now, ...input.ids, input.tenantId, input.engineGroup, input.dueBefore],
  );
  if (affected === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${claimedRunColumns('r')}, ${claimedRunTaskColumns('t', 't_')}
       FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id IN (${ids}) AND r.claimed_by = ? AND r.lease_until = ? AND r.state = 'CLAIMED'`,
    [...input.ids, input.owner, input.leaseUntil],
  );
  return rows.map((r) => ({ run: claimedRunRow(r, input.leaseUntil), task: r.t_id === null || r.t_id === undefined ? null : claimedRunTask(r, 't_') }));
}
