import type { EntityManager } from 'typeorm';
import type { ShardPlan } from '@baton/domain';
import { chunks, dialectOf, execute } from '../engine-queries/sql';

const COLUMNS =
  'tenant_id, task_id, engine_group, state, cause, fire_key, flow_id, parent_run_id, attempt, priority, params, scheduled_at, due_at, ' +
  'executor_id, pinned_executor_id, shard_index, shard_total, parent_results, flow_params, trace_parent, created_at, updated_at';

/** The fan-out run whose shards are written, as its engine holds it (its engine group is read from its row). */
export interface FanOutParent {
  runId: number;
  tenantId: string;
  taskId: number;
  priority: number;
  /** The run's params snapshot, JSON text: every shard gets the same params. */
  paramsJson: string;
  parentResults: string | null;
  flowParams: string | null;
  /** Its trace context (runs.trace_parent): the shards join the fan-out run's trace. Null: untraced. */
  traceParent: string | null;
}

/**
 * A fan-out run's shards, PENDING and due now, in the transaction that starts the run, after
 * startFanOutRun has written (and so locked) the run's row:
 *
 *   SELECT engine_group FROM runs WHERE id = <run>
 *   INSERT INTO runs (…) VALUES (…, 'PENDING', 'SHARD', 'sh:<run>:<i>', NULL, <run>, 1, …), …
 *     MySQL: ON DUPLICATE KEY UPDATE id = id   SQLite: ON CONFLICT (task_id, fire_key) DO NOTHING
 *
 * The fire key `sh:<run>:<index>` makes each shard unique in its task (uq_runs_task_fire_key),
 * so a start written twice writes its shards once. `scheduled_at` is the fan-out's moment: a
 * shard's lateness is its own wait for an executor, not its parent's. No flow: a shard is part
 * of its parent's step, and the flow queries (fan-in, parents' results) must see only the parent
 * — the shards carry the flow's params and the parent's parents' results themselves.
 * `executor_id` is where the shard should go first (SHARDED: spread round the executors), which
 * the routing already honours for a re-sent run; a broadcast shard is also pinned there.
 *
 * The shards' engine group is the run's row's, read under that lock, not the one its engine read
 * when it claimed it: its tenant may have moved to another group since (moveTenantGroup moves the
 * runs an engine holds too), and shards written in the old group waited for good — no engine
 * claims a tenant's runs outside its group — and their run with them.
 */
export async function insertShardRuns(manager: EntityManager, input: { parent: FanOutParent; shards: readonly ShardPlan[]; now: number }): Promise<void> {
  const { parent, now } = input;
  const { rows } = await execute<{ engine_group: unknown }>(manager, 'SELECT engine_group FROM runs WHERE id = ?', [parent.runId]);
  if (rows.length === 0) return;
  const engineGroup = String(rows[0].engine_group);
  const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (task_id, fire_key) DO NOTHING';
  for (const chunk of chunks(input.shards)) {
    const values = chunk.map(() => "(?, ?, ?, 'PENDING', 'SHARD', ?, NULL, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ');
    const params = chunk.flatMap((s) => [
      parent.tenantId,
      parent.taskId,
      engineGroup,
      `sh:${parent.runId}:${s.index}`,
      parent.runId,
      parent.priority,
      parent.paramsJson,
      now,
      now,
      s.preferredExecutorId,
      s.pinnedExecutorId,
      s.index,
      s.total,
      parent.parentResults,
      parent.flowParams,
      parent.traceParent,
      now,
      now,
    ]);
    await execute(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values} ${onDuplicate}`, params);
  }
}
