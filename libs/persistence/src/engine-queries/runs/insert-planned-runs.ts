import type { EntityManager } from 'typeorm';
import { chunks, dialectOf, execute } from '../sql';

/** One run row the planner writes: a scheduled fire (PENDING) or a skipped misfire (SKIPPED); or a backfilled past fire. */
export interface PlannedRunRow {
  /** Default SCHEDULE. BACKFILL: a past fire backfilled on request (the same fire key: never twice). */
  cause?: 'SCHEDULE' | 'BACKFILL';
  /** Set for backfilled fires: their fire time is past on purpose, so no START_LATE. Default null. */
  lateAlarmedAt?: number | null;
  tenantId: string;
  taskId: number;
  engineGroup: string;
  state: 'PENDING' | 'SKIPPED';
  /** `s:<scheduled ms>`: the (task, fire key) unique key is the (task, scheduled time) key. */
  fireKey: string;
  priority: number;
  /** The task's params as stored (JSON text): the run's snapshot. */
  paramsJson: string;
  scheduledAt: number;
  dueAt: number;
  /** SKIPPED rows are finished when written. */
  finishedAt: number | null;
  error: string | null;
  /** W3C traceparent of the fire's span (runs.trace_parent); default null: untraced. */
  traceParent?: string | null;
}

const COLUMNS =
  'tenant_id, task_id, engine_group, state, cause, fire_key, flow_id, parent_run_id, attempt, priority, params, ' +
  'scheduled_at, due_at, finished_at, error, late_alarmed_at, trace_parent, created_at, updated_at';

/**
 * Writes the planned runs, several rows per statement, ignoring rows whose (task_id, fire_key)
 * already exists:
 *
 *   MySQL:  INSERT INTO runs (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id
 *   SQLite: INSERT INTO runs (…) VALUES (…), (…) ON CONFLICT (task_id, fire_key) DO NOTHING
 *
 * Why: the unique key is what makes a duplicate fire impossible whatever the engines do (two
 * planners, a planner re-planning after a stale write, a retried transaction); a duplicate is
 * an expected outcome, not an error, so the statement must not fail on it. On MySQL the no-op
 * ON DUPLICATE KEY UPDATE is used rather than INSERT IGNORE, which would also turn real errors
 * (a value too long, a bad type) into silent warnings. Rows go in (task, scheduled time) order
 * so two writers touching the same keys lock them in the same order (no deadlock).
 * attempt 1; flow_id null: each is the root of its own flow (RunEntity.flowId).
 * Measured (local, one statement of 500 rows): 15–21 ms on MariaDB 10.11, 3.6 ms on SQLite.
 */
export async function insertPlannedRuns(manager: EntityManager, rows: readonly PlannedRunRow[], now: number): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => a.taskId - b.taskId || a.scheduledAt - b.scheduledAt);
  const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (task_id, fire_key) DO NOTHING';
  for (const chunk of chunks(sorted)) {
    const values = chunk.map(() => '(?, ?, ?, ?, ?, ?, NULL, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    const params = chunk.flatMap((r) => [
      r.tenantId,
      r.taskId,
      r.engineGroup,
      r.state,
      r.cause ?? 'SCHEDULE',
      r.fireKey,
      r.priority,
      r.paramsJson,
      r.scheduledAt,
      r.dueAt,
      r.finishedAt,
      r.error,
      r.lateAlarmedAt ?? null,
      r.traceParent ?? null,
      now,
      now,
    ]);
    await execute(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values} ${onDuplicate}`, params);
  }
}
