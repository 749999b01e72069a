import type { EntityManager } from 'typeorm';
import type { RunEntity } from '../../entities';
import { execute, placeholders } from '../sql';
import { claimedRunColumns, claimedRunRow, type ClaimedRunColumn, type ClaimedRunRow } from './claim-due-runs';
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

/** A named run's row as readNamedRuns selects it: the run's columns, and its task's prefixed `t_` (JSON values, as the database gives them). */
export type NamedRunColumns = Record<string, string | number | null>;

/** A named run, read or carried by its wake-up: the run, and its task (null: deleted). */
export interface NamedRun {
  run: ClaimedRunRow;
  task: ClaimedRunTask | null;
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
 * The console's wake-up carries its runs' rows in this form (namedRunColumns), and the engine
 * takes them instead of this read.
 */
export async function readNamedRuns(manager: EntityManager, input: ReadNamedRunsInput): Promise<NamedRun[]> {
  if (input.ids.length === 0) return [];
  const { rows } = await execute<NamedRunColumns>(
    manager,
    `SELECT ${claimedRunColumns('r')}, ${claimedRunTaskColumns('t', 't_')}
       FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id IN (${placeholders(input.ids.length)}) AND r.tenant_id = ? AND r.engine_group = ? AND r.due_at <= ? AND r.state = 'PENDING'`,
    [...input.ids, input.tenantId, input.engineGroup, input.dueBefore],
  );
  return rows.map(namedRunOf);
}

/** A row of readNamedRuns's form as a NamedRun (no lease yet). */
export function namedRunOf(r: NamedRunColumns): NamedRun {
  return { run: claimedRunRow(r, 0), task: r.t_id === null || r.t_id === undefined ? null : claimedRunTask(r, 't_') };
}

/**
 * A run the console has just written, as readNamedRuns would read it back once committed: its
 * columns, and `task` — its task's `t_` columns as the transaction's share lock read them
 * (lockSubmittedTasks), current until the commit. Every column the read selects is named here
 * (the type has them all), so what an engine dispatches from a wake-up's row is what it would have
 * read; read-named-runs.spec.ts compares the two for the same runs.
 */
export function namedRunColumns(run: RunEntity, task: NamedRunColumns): NamedRunColumns {
  const columns: Record<ClaimedRunColumn, string | number | null> = {
    id: run.id,
    tenant_id: run.tenantId,
    task_id: run.taskId,
    engine_group: run.engineGroup,
    cause: run.cause,
    attempt: run.attempt,
    priority: run.priority,
    params: JSON.stringify(run.params ?? null),
    scheduled_at: run.scheduledAt,
    due_at: run.dueAt,
    instant_at: run.instantAt,
    late_from_at: run.lateFromAt,
    flow_id: run.flowId,
    executor_id: run.executorId,
    parent_results: run.parentResults,
    flow_params: run.flowParams,
    parent_run_id: run.parentRunId,
    shard_index: run.shardIndex,
    shard_total: run.shardTotal,
    pinned_executor_id: run.pinnedExecutorId,
    trace_parent: run.traceParent,
    run_key: run.runKey,
  };
  // Not `{ ...columns, ...task }`: V8 (Node 20) builds that 42-key literal on a slow path, 60 µs a run against 1 µs for this.
  return Object.assign(columns, task);
}
