import type { EntityManager } from 'typeorm';
import { execute, placeholders } from '../sql';
import { claimedRunColumns, claimedRunRow, type ClaimedRunRow } from './claim-due-runs';
import { claimedRunTask, claimedRunTaskColumns, type ClaimedRunTask } from './find-claimed-run-tasks';

export interface ReadNamedRunsInput {
  /** Runs a wake-up named (a trigger's): a handful, bounded by the caller. */
  ids: readonly number[];
  /** Only the signing tenant's runs, in a group this engine serves. */
  tenantId: string;
  engineGroup: string;
  /** Only runs due at or before this. */
  dueBefore: number;
}

/**
 * The PENDING runs a wake-up named, with their tasks, read without claiming them:
 *
 *   SELECT r.id, …, t.id AS t_id, … FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
 *    WHERE r.id IN (…) AND r.tenant_id = ? AND r.engine_group = ? AND r.due_at <= ? AND r.state = 'PENDING'
 *
 * Why: a run that goes out at once needs no CLAIMED row of its own; its DISPATCHED mark claims it
 * (markRunsDispatched, guarded on PENDING, taking the lease), which makes a trigger's run one row
 * write and two statements on the engine where a claim by id and a mark were two writes and three
 * statements (claimNamedRuns). A run read here is not this engine's until that mark moves it: a
 * peer woken too, a poll's claim or a cancel that writes first leaves the mark nothing to move, and
 * the run is dropped from memory. `leaseUntil` of each row is 0: it holds no lease yet.
 */
export async function readNamedRuns(manager: EntityManager, input: ReadNamedRunsInput): Promise<Array<{ run: ClaimedRunRow; task: ClaimedRunTask | null }>> {
  if (input.ids.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${claimedRunColumns('r')}, ${claimedRunTaskColumns('t', 't_')}
       FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id IN (${placeholders(input.ids.length)}) AND r.tenant_id = ? AND r.engine_group = ? AND r.due_at <= ? AND r.state = 'PENDING'`,
    [...input.ids, input.tenantId, input.engineGroup, input.dueBefore],
  );
  return rows.map((r) => ({ run: claimedRunRow(r, 0), task: r.t_id === null || r.t_id === undefined ? null : claimedRunTask(r, 't_') }));
}
