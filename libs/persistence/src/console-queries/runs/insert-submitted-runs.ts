import type { EntityManager } from 'typeorm';
import type { KeyDebounce, KeyThrottle } from '@baton/domain';
import { RunEntity } from '../../entities';
import { dialectOf, execute, num, placeholders } from '../../engine-queries/sql';
import { insertWithIds } from './insert-with-ids';
import { newRunRow } from './new-run-row';

/** The tasks a batch of submissions names, as far as their runs need them. */
export interface SubmittableTask {
  id: number;
  name: string;
  engineGroup: string;
  priority: number;
  /** The task's params as stored (JSON text), the run's unless a submission gives its own. */
  params: string | null;
  executorApp: string;
  handler: string;
  /** Its debounce per key (tasks.key_debounce); null: none. */
  debounce: KeyDebounce | null;
  /** Its throttle per key (tasks.key_throttle); null: none. */
  throttle: KeyThrottle | null;
  /** tasks.version, raised by every change of the columns above: a copy read earlier is current while it matches (lockSubmittedTasks). */
  version: number;
}

/**
 * The tenant's tasks of a batch of submissions, by id, in one read:
 *
 *   SELECT id, name, engine_group, priority, params, executor_app, handler, key_debounce, key_throttle, version FROM tasks
 *    WHERE tenant_id = ? AND id IN (…)                                          -- primary key
 *
 * Another tenant's task is not found: to the submitter it does not exist (404).
 */
export async function findSubmittableTasks(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, SubmittableTask>> {
  const found = new Map<number, SubmittableTask>();
  if (ids.length === 0) return found;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, name, engine_group, priority, params, executor_app, handler, key_debounce, key_throttle, version FROM tasks WHERE tenant_id = ? AND id IN (${placeholders(ids.length)})`,
    [tenantId, ...ids],
  );
  for (const r of rows) {
    const id = num(r.id);
    found.set(id, {
      id,
      name: String(r.name),
      engineGroup: String(r.engine_group),
      priority: num(r.priority),
      params: r.params === null || r.params === undefined ? null : String(r.params),
      executorApp: String(r.executor_app),
      handler: String(r.handler),
      debounce: jsonOrNull<KeyDebounce>(r.key_debounce),
      throttle: jsonOrNull<KeyThrottle>(r.key_throttle),
      version: num(r.version),
    });
  }
  return found;
}

function jsonOrNull<T>(value: unknown): T | null {
  return value === null || value === undefined ? null : (JSON.parse(String(value)) as T);
}

/** One run to write for a submission. */
export interface SubmittedRun {
  task: SubmittableTask;
  /** JSON text of the run's params (the task's when the submission gave none). */
  params: string | null;
  flowParams: string | null;
  /** `m:<uuid>` (a submission of its own), `k:<idempotency key>` (one run per key and task) or `e:<event's idempotency key>`. */
  fireKey: string;
  /** Why the run exists: MANUAL (a trigger, a batch) or EVENT (an event started it). Default MANUAL. */
  cause?: 'MANUAL' | 'EVENT';
  /** W3C traceparent of the request that submitted it (runs.trace_parent); null when untraced. */
  traceParent?: string | null;
}

const COLUMNS = 'tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, flow_params, trace_parent, scheduled_at, due_at, created_at, updated_at';

/**
 * Runs submitted through the API (a trigger, a batch of submissions, an event) in one transaction:
 * one PENDING run each, cause MANUAL (EVENT for an event's), due now, its own flow's root (flow_id null), under its fire
 * key. One INSERT for the batch's unkeyed runs, one for its keyed ones:
 *
 *   INSERT INTO runs (…) VALUES (…), (…)                                          -- unkeyed (insertWithIds)
 *   SELECT id, task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…)
 *                                          -- unkeyed, only when the ids are not consecutive (MySQL 8's lock mode 2)
 *   SELECT task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…)  -- keyed
 *   MySQL:  INSERT INTO runs (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id                   -- keyed
 *   SQLite: INSERT INTO runs (…) VALUES (…), (…) ON CONFLICT (task_id, fire_key) DO NOTHING        -- keyed
 *   SELECT * FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…) [LOCK IN SHARE MODE] -- keyed: whole rows
 *
 * An unkeyed submission's fire key (`m:<uuid>`) is new by construction, so its row is exactly what
 * the INSERT wrote, and the INSERT is a plain one: its ids are those the database gave the
 * statement's rows in turn where it gives them consecutively (MariaDB, SQLite: insertWithIds),
 * else read back by fire key, and the row is made from the values written (submittedRunRow).
 * Reading and hydrating the whole rows through the ORM had cost the console more CPU per run than
 * the INSERT itself; the read-back of the ids, a statement of a trigger written alone's seven. A
 * keyed submission may meet the row another request made under its key, so its row is read as the
 * database holds it.
 *
 * Why so: a run written alone costs its transaction (START, INSERT, COMMIT and its log flush);
 * written together, concurrent submissions share them, so the database's work per run falls
 * as the rate rises (the submission lane, apps/console/src/submissions).
 *
 * An idempotency key already used for the task is not an error: the INSERT leaves that row as it
 * is, and the answer is the run the key made first (`created` false; also for a key given twice
 * in one batch, after its first). Returns each run's row as
 * the database holds it, in the order given, with whether this call made it.
 */
export async function insertSubmittedRuns(
  manager: EntityManager,
  tenantId: string,
  runs: readonly SubmittedRun[],
  now: number,
): Promise<Array<{ row: RunEntity; created: boolean }>> {
  if (runs.length === 0) return [];
  const byKey = new Map<string, RunEntity>();
  const unkeyed = runs.filter((r) => r.fireKey.startsWith('m:'));
  if (unkeyed.length > 0) {
    const written = await insertWithIds(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values(unkeyed.length)}`, valueParams(tenantId, unkeyed, now), unkeyed.length);
    const idOf = written ? new Map(unkeyed.map((r, i) => [keyOf(r.task.id, r.fireKey), written[i]])) : await readBackIds(manager, tenantId, unkeyed);
    for (const r of unkeyed) {
      const id = idOf.get(keyOf(r.task.id, r.fireKey));
      if (id !== undefined) byKey.set(keyOf(r.task.id, r.fireKey), submittedRunRow(id, tenantId, r, now));
    }
  }
  const keyed = runs.filter((r) => !r.fireKey.startsWith('m:'));
  const existing = new Set<string>();
  if (keyed.length > 0) {
    const keyedTasks = [...new Set(keyed.map((r) => r.task.id))];
    const { rows } = await execute<{ task_id: unknown; fire_key: unknown }>(
      manager,
      `SELECT task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (${placeholders(keyedTasks.length)}) AND fire_key IN (${placeholders(keyed.length)})`,
      [tenantId, ...keyedTasks, ...keyed.map((r) => r.fireKey)],
    );
    for (const r of rows) existing.add(keyOf(num(r.task_id), String(r.fire_key)));
    const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (task_id, fire_key) DO NOTHING';
    await execute(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values(keyed.length)} ${onDuplicate}`, valueParams(tenantId, keyed, now));
    const readBack = manager
      .createQueryBuilder(RunEntity, 'r')
      .where('r.tenantId = :tenantId AND r.taskId IN (:...taskIds) AND r.fireKey IN (:...fireKeys)', { tenantId, taskIds: keyedTasks, fireKeys: keyed.map((r) => r.fireKey) });
    // A locking read on MySQL: a key another transaction committed while this one waited on it is
    // newer than this transaction's snapshot (REPEATABLE READ), which a plain read would not see.
    const readRows = await (dialectOf(manager) === 'mysql' ? readBack.setLock('pessimistic_read') : readBack).getMany();
    for (const row of readRows) byKey.set(keyOf(row.taskId, row.fireKey), row);
  }
  // A key given twice in one batch made its run once: the first is the one that made it.
  return runs.map((r) => {
    const key = keyOf(r.task.id, r.fireKey);
    const row = byKey.get(key);
    if (!row) throw new Error(`run of task ${r.task.id} under ${r.fireKey} not found after its insert`);
    const created = !existing.has(key);
    existing.add(key);
    return { row, created };
  });
}

function keyOf(taskId: number, fireKey: string): string {
  return `${taskId} ${fireKey}`;
}

function values(count: number): string {
  return Array.from({ length: count }, () => "(?, ?, ?, 'PENDING', ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ');
}

function valueParams(tenantId: string, runs: readonly SubmittedRun[], now: number): unknown[] {
  return runs.flatMap((r) => [tenantId, r.task.id, r.task.engineGroup, r.cause ?? 'MANUAL', r.fireKey, r.task.priority, r.params, r.flowParams, r.traceParent ?? null, now, now, now, now]);
}

/** The ids of unkeyed runs just inserted, by their fire keys (where the database did not give them consecutively). */
async function readBackIds(manager: EntityManager, tenantId: string, unkeyed: readonly SubmittedRun[]): Promise<Map<string, number>> {
  const tasks = [...new Set(unkeyed.map((r) => r.task.id))];
  const { rows } = await execute<{ id: unknown; task_id: unknown; fire_key: unknown }>(
    manager,
    `SELECT id, task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (${placeholders(tasks.length)}) AND fire_key IN (${placeholders(unkeyed.length)})`,
    [tenantId, ...tasks, ...unkeyed.map((r) => r.fireKey)],
  );
  return new Map(rows.map((row) => [keyOf(num(row.task_id), String(row.fire_key)), num(row.id)]));
}

/** The row an unkeyed submission's INSERT wrote (newRunRow), with the id read back. */
function submittedRunRow(id: number, tenantId: string, run: SubmittedRun, now: number): RunEntity {
  const row = newRunRow({
    tenantId,
    taskId: run.task.id,
    engineGroup: run.task.engineGroup,
    priority: run.task.priority,
    params: run.params === null ? null : JSON.parse(run.params),
    flowParams: run.flowParams,
    fireKey: run.fireKey,
    cause: run.cause ?? 'MANUAL',
    traceParent: run.traceParent ?? null,
    now,
  });
  return Object.assign(new RunEntity(), { id, ...row });
}
