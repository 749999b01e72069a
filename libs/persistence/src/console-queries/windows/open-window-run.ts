import type { EntityManager } from 'typeorm';
import type { RunCause } from '@baton/domain';
import { dialectOf, execute } from '../../engine-queries/sql';
import type { WindowSubmission } from './join-window-run';

/** The rest of what a window's first submission writes. */
export interface OpenedWindow extends WindowSubmission {
  engineGroup: string;
  priority: number;
  cause: RunCause;
  traceParent: string | null;
}

/**
 * A key's new window: its run, COALESCING, due at the submission's due time, ending at `until`:
 *
 *   MySQL:  INSERT IGNORE INTO runs (…, state, fire_key, window_until, …) VALUES (…, 'COALESCING', 'w:<digest>', ?, …)
 *   SQLite: INSERT INTO runs (…) VALUES (…) ON CONFLICT (task_id, fire_key) DO NOTHING
 *
 * The unique key (task_id, fire_key) makes it the one open window of its task and key, across
 * consoles: of two first submissions at once, one inserts and the other finds the row there
 * (nothing inserted: it joins that window, or retires a stale holder of the name, and tries
 * again). IGNORE on MySQL, as lockRunKey's insert: `ON DUPLICATE KEY UPDATE id = id` would
 * answer 1 row either way under the driver's FOUND_ROWS flag, and the caller needs to know.
 * Returns whether it inserted.
 */
export async function openWindowRun(manager: EntityManager, w: OpenedWindow): Promise<boolean> {
  const mysql = dialectOf(manager) === 'mysql';
  const { affected } = await execute(
    manager,
    `${mysql ? 'INSERT IGNORE' : 'INSERT'} INTO runs
       (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, flow_params, trace_parent, scheduled_at, due_at, window_until, created_at, updated_at)
     VALUES (?, ?, ?, 'COALESCING', ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ${mysql ? '' : 'ON CONFLICT (task_id, fire_key) DO NOTHING'}`,
    [w.tenantId, w.taskId, w.engineGroup, w.cause, w.fireKey, w.priority, w.params, w.flowParams, w.traceParent, w.dueAt, w.dueAt, w.until, w.now, w.now],
  );
  return affected > 0;
}
