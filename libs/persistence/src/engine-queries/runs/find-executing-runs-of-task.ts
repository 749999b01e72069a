import type { EntityManager } from 'typeorm';
import { execute, num, numOrNull } from '../sql';

export interface ExecutingRunRow {
  runId: number;
  attempt: number;
  executorId: number | null;
  /** Base URL of the executor that has it (for an abort), null if unknown. */
  executorUrl: string | null;
  /** A fan-out run (it has shards, and no executor of its own); false for shards and single runs. */
  fanOut: boolean;
  /** The run's trace context (runs.trace_parent), for a log line about its abort; null: untraced. */
  traceParent: string | null;
}

/**
 * Other runs of a task that are executing (DISPATCHED or ACCEPTED) — concurrency FORBID/REPLACE:
 *
 *   SELECT r.id, r.attempt, r.executor_id, e.url, r.cause, r.shard_total, r.trace_parent FROM runs r LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.task_id = ? AND r.state IN ('DISPATCHED', 'ACCEPTED') AND r.id <> ?
 *
 * A range on the (task_id, state) prefix of ix_runs_task_filter: the task's history (terminal runs) is never
 * read, however many runs it has had. Call it after lockTaskForConcurrency.
 */
export async function findExecutingRunsOfTask(manager: EntityManager, taskId: number, exceptRunId: number): Promise<ExecutingRunRow[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.id, r.attempt, r.executor_id, e.url, r.cause, r.shard_total, r.trace_parent
       FROM runs r LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.task_id = ? AND r.state IN ('DISPATCHED', 'ACCEPTED') AND r.id <> ?`,
    [taskId, exceptRunId],
  );
  return rows.map((r) => ({
    runId: num(r.id),
    attempt: num(r.attempt),
    executorId: numOrNull(r.executor_id),
    executorUrl: (r.url as string | null) ?? null,
    fanOut: r.cause !== 'SHARD' && r.shard_total !== null && r.shard_total !== undefined,
    traceParent: (r.trace_parent as string | null) ?? null,
  }));
}
