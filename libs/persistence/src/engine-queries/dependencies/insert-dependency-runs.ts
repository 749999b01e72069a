import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from '../sql';

const COLUMNS =
  'tenant_id, task_id, engine_group, state, cause, fire_key, flow_id, parent_run_id, attempt, priority, params, ' +
  'scheduled_at, due_at, finished_at, error, parent_results, flow_params, trace_parent, created_at, updated_at';

/**
 * Fires children of a finished run in its flow: one run per child, cause DEPENDENCY, fire key
 * `f:<flow id>`, due now. Reads the children first (scoped by tenant), then inserts:
 *
 *   SELECT id, tenant_id, engine_group, priority, params, paused FROM tasks WHERE tenant_id = ? AND id IN (…)
 *   SELECT flow_params FROM runs WHERE id = ?                          -- the flow's root
 *   MySQL:  INSERT INTO runs (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id
 *   SQLite: INSERT INTO runs (…) VALUES (…), (…) ON CONFLICT (task_id, fire_key) DO NOTHING
 *
 * The unique key (task_id, fire_key) is "a child fires at most once per flow": when two parents
 * of a fan-in finish together and both decide to fire the child, the second insert is a no-op
 * (a duplicate key is an expected outcome, not an error — as in insert-planned-runs.ts).
 * A paused child gets a SKIPPED row (finished, error "task paused") instead of a PENDING one:
 * the console shows why the flow stopped there, and its own children never fire. A child behind an
 * approval step (`waiting`) gets an APPROVAL_WAIT row: no engine claims it until it is approved
 * (its approval row: insertRunApprovals).
 * Returns the number of child tasks found.
 */
export async function insertDependencyRuns(
  manager: EntityManager,
  input: {
    tenantId: string;
    childTaskIds: readonly number[];
    flowId: number;
    parentRunId: number;
    /** Per child task: its parents' results in this flow (domain parentResultsJson), or none. */
    parentResults?: ReadonlyMap<number, string | null>;
    /** Child tasks whose run waits for a person (an edge's approval step): APPROVAL_WAIT, not PENDING. Default none. */
    waiting?: ReadonlySet<number>;
    /** W3C traceparent of the parent's outcome span: the children join the parent run's trace. Default null. */
    traceParent?: string | null;
    now: number;
  },
): Promise<number> {
  if (input.childTaskIds.length === 0) return 0;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, tenant_id, engine_group, priority, params, paused FROM tasks
      WHERE tenant_id = ? AND id IN (${placeholders(input.childTaskIds.length)}) ORDER BY id`,
    [input.tenantId, ...input.childTaskIds],
  );
  if (rows.length === 0) return 0;
  const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (task_id, fire_key) DO NOTHING';
  // The flow's params travel with every run of the flow: the root's, read once.
  const { rows: root } = await execute<{ flow_params: unknown }>(manager, 'SELECT flow_params FROM runs WHERE id = ?', [input.flowId]);
  const flowParams = root[0]?.flow_params ?? null;
  const values = rows.map(() => "(?, ?, ?, ?, 'DEPENDENCY', ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ');
  const params = rows.flatMap((t) => {
    const paused = Boolean(num(t.paused));
    return [
      t.tenant_id,
      num(t.id),
      t.engine_group,
      paused ? 'SKIPPED' : input.waiting?.has(num(t.id)) ? 'APPROVAL_WAIT' : 'PENDING',
      `f:${input.flowId}`,
      input.flowId,
      input.parentRunId,
      num(t.priority),
      t.params,
      input.now,
      input.now,
      paused ? input.now : null,
      paused ? 'task paused: not fired by its dependency' : null,
      input.parentResults?.get(num(t.id)) ?? null,
      flowParams,
      input.traceParent ?? null,
      input.now,
      input.now,
    ];
  });
  await execute(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values} ${onDuplicate}`, params);
  return rows.length;
}
