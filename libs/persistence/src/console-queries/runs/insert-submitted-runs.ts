import type { EntityManager } from 'typeorm';
import type { KeyDebounce, KeyThrottle } from '@baton/domain';
import { RunEntity } from '../../entities';
import { chunks, dialectOf, execute, num, placeholders } from '../../engine-queries/sql';
import { collated } from '../collated';
import { hasReturning } from './has-returning';
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
  /** Written already sent (an unkeyed run only): DISPATCHED to this executor, held by the engine of the console's process (DirectStarts). */
  sent?: SentRun;
}

/** A run written DISPATCHED: what the engine's mark would have written (markRunsDispatched), at its INSERT. */
export interface SentRun {
  /** The engine's node id: claimed_by. */
  nodeId: string;
  leaseUntil: number;
  executorId: number;
  /** The insert's instant + the task's timeout. */
  deadlineAt: number;
}

const COLUMNS = 'tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, flow_params, trace_parent, scheduled_at, due_at, created_at, updated_at';
/** The columns of a run written already sent: COLUMNS and the DISPATCHED mark's. */
const SENT_COLUMNS = `${COLUMNS}, claimed_by, lease_until, executor_id, dispatched_at, deadline_at`;

/**
 * Runs submitted through the API (a trigger, a batch of submissions, an event) in one transaction:
 * one PENDING run each, cause MANUAL (EVENT for an event's), due now, its own flow's root (flow_id null), under its fire
 * key. One INSERT for the batch's unkeyed runs, one for its keyed ones (each of at most
 * MAX_ROWS_PER_STATEMENT rows: more take one statement per such part):
 *
 *   INSERT INTO runs (…) VALUES (…), (…)                                          -- unkeyed (insertWithIds)
 *   SELECT id, task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…)
 *                                          -- unkeyed, only when the ids are not consecutive (MySQL 8's lock mode 2)
 *   MariaDB: INSERT IGNORE INTO runs (…) VALUES (…), (…) RETURNING id, task_id, fire_key    -- keyed, in key order
 *   SQLite:  INSERT INTO runs (…) VALUES (…), (…) ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING id, task_id, fire_key
 *   MySQL:   SELECT …; INSERT … ON DUPLICATE KEY UPDATE id = id; SELECT ids                  -- keyed (insertKeyed)
 *   SELECT * FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…) [LOCK IN SHARE MODE]
 *                                          -- keyed: whole rows, only of keys used before
 *
 * A run written already sent (`sent`: unkeyed runs only) goes in an INSERT of its own, DISPATCHED
 * with its executor, its engine's lease and its deadline — the row the engine's DISPATCHED mark
 * would make of it a moment later (markRunsDispatched), so the mark, a second write of every
 * index entry that holds the run's state and a statement after the commit, is not made:
 *
 *   INSERT INTO runs (…, claimed_by, lease_until, executor_id, dispatched_at, deadline_at) VALUES (…, 'DISPATCHED', …)
 *
 * Through the Node SDK's `submit` at 1,000 runs a second on 2 nodes, MariaDB's CPU a run fell from
 * 0.42–0.44 ms to 0.33–0.34 (docs/BENCHMARKS.md, on demand: Written already sent).
 *
 * An unkeyed submission's fire key (`m:<uuid>`) is new by construction, so its row is exactly what
 * the INSERT wrote, and the INSERT is a plain one: its ids are those the database gave the
 * statement's rows in turn where it gives them consecutively (MariaDB, SQLite: insertWithIds),
 * else read back by fire key, and the row is made from the values written (submittedRunRow).
 * Reading and hydrating the whole rows through the ORM had cost the console more CPU per run than
 * the INSERT itself; the read-back of the ids, a statement of a trigger written alone's seven. A
 * keyed submission whose key is new is made the same way from the id its INSERT returned; one whose
 * key was used (before, or by another transaction meanwhile) is read as the database holds it.
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
  // The runs this call made, by `task fire_key`: every unkeyed one; a keyed one unless its key was used before.
  const made = new Set<string>();
  // A statement of MAX_ROWS_PER_STATEMENT rows at most: each event of a batch of 500 may start a
  // run of each of its subscribers, so a write can hold thousands of runs, and at 13 values a row
  // past SQLite's 32,766 bound parameters the whole request failed with a 500.
  const unkeyed = runs.filter((r) => r.fireKey.startsWith('m:'));
  const sent = unkeyed.filter((r) => r.sent !== undefined);
  const parts = [...chunks(unkeyed.filter((r) => r.sent === undefined)).map((part) => ({ part, sent: false })), ...chunks(sent).map((part) => ({ part, sent: true }))];
  for (const { part, sent } of parts) {
    const written = await insertWithIds(
      manager,
      sent ? `INSERT INTO runs (${SENT_COLUMNS}) VALUES ${sentValues(part.length)}` : `INSERT INTO runs (${COLUMNS}) VALUES ${values(part.length)}`,
      sent ? sentValueParams(tenantId, part, now) : valueParams(tenantId, part, now),
      part.length,
    );
    const idOf = written ? new Map(part.map((r, i) => [keyOf(r.task.id, r.fireKey), written[i]])) : await readBackIds(manager, tenantId, part);
    for (const r of part) {
      const id = idOf.get(keyOf(r.task.id, r.fireKey));
      if (id !== undefined) byKey.set(keyOf(r.task.id, r.fireKey), submittedRunRow(id, tenantId, r, now));
      made.add(keyOf(r.task.id, r.fireKey));
    }
  }
  const keyed = runs.filter((r) => !r.fireKey.startsWith('m:'));
  if (keyed.length > 0) {
    // One order for every transaction's locks on the keys (collated): two consoles writing the same
    // keys in different orders deadlocked on them (bench idempotency: whole batches 500 after 4 attempts).
    // The statements follow that order too, so the locks are taken in it across them.
    const ordered = [...keyed].sort((a, b) => a.task.id - b.task.id || collated(a.fireKey, b.fireKey));
    const madeIds = new Map<string, number>();
    for (const part of chunks(ordered)) for (const [key, id] of await insertKeyed(manager, tenantId, part, now)) madeIds.set(key, id);
    for (const r of keyed) {
      const id = madeIds.get(keyOf(r.task.id, r.fireKey));
      // A key given twice in one batch: its row holds the first item's params (the INSERT kept the
      // first), and so must the row the engine is woken with; the last one's went to the handler.
      if (id === undefined || byKey.has(keyOf(r.task.id, r.fireKey))) continue;
      made.add(keyOf(r.task.id, r.fireKey));
      byKey.set(keyOf(r.task.id, r.fireKey), submittedRunRow(id, tenantId, r, now));
    }
    // Keys used before (or meanwhile, by another transaction): their runs as the database holds them.
    const others = keyed.filter((r) => !byKey.has(keyOf(r.task.id, r.fireKey)));
    for (const part of chunks(others)) {
      const readBack = manager
        .createQueryBuilder(RunEntity, 'r')
        .where('r.tenantId = :tenantId AND r.taskId IN (:...taskIds) AND r.fireKey IN (:...fireKeys)', { tenantId, taskIds: [...new Set(part.map((r) => r.task.id))], fireKeys: part.map((r) => r.fireKey) });
      // A locking read on MySQL: a key another transaction committed while this one waited on it is
      // newer than this transaction's snapshot (REPEATABLE READ), which a plain read would not see.
      const readRows = await (dialectOf(manager) === 'mysql' ? readBack.setLock('pessimistic_read') : readBack).getMany();
      for (const row of readRows) byKey.set(keyOf(row.taskId, row.fireKey), row);
    }
  }
  // A key given twice in one batch made its run once: the first is the one that made it.
  return runs.map((r) => {
    const key = keyOf(r.task.id, r.fireKey);
    const row = byKey.get(key);
    if (!row) throw new Error(`run of task ${r.task.id} under ${r.fireKey} not found after its insert`);
    return { row, created: made.delete(key) };
  });
}

/**
 * Keyed runs written, those whose key was new: their ids by `task fire_key`. Where the INSERT can
 * name the rows it wrote (MariaDB ≥ 10.5, SQLite ≥ 3.35: RETURNING, which leaves out the rows
 * IGNORE or DO NOTHING skipped), exactly, whatever another transaction wrote meanwhile:
 *
 *   MariaDB: INSERT IGNORE INTO runs (…) VALUES (…), (…) RETURNING id, task_id, fire_key
 *   SQLite:  INSERT INTO runs (…) VALUES (…), (…) ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING id, task_id, fire_key
 *
 * MySQL has no RETURNING: the keys present before are read first, and the INSERT leaves them:
 *
 *   SELECT task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (…) AND fire_key IN (…)
 *   INSERT INTO runs (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id
 *
 * There a key two consoles write at the same moment is the same run for both, and both may answer
 * it as made (201): the plain read does not see the other's uncommitted row. (IGNORE downgrades
 * other errors to warnings too; the values here are checked before: task columns, bounded params,
 * fire keys of at most 64 characters.)
 */
async function insertKeyed(manager: EntityManager, tenantId: string, runs: readonly SubmittedRun[], now: number): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const params = valueParams(tenantId, runs, now);
  const dialect = dialectOf(manager);
  if (dialect === 'sqlite' || (await hasReturning(manager))) {
    const sql =
      dialect === 'sqlite'
        ? `INSERT INTO runs (${COLUMNS}) VALUES ${values(runs.length)} ON CONFLICT (task_id, fire_key) DO NOTHING RETURNING id, task_id, fire_key`
        : `INSERT IGNORE INTO runs (${COLUMNS}) VALUES ${values(runs.length)} RETURNING id, task_id, fire_key`;
    const { rows } = await execute<{ id: unknown; task_id: unknown; fire_key: unknown }>(manager, sql, params);
    for (const row of rows) ids.set(keyOf(num(row.task_id), String(row.fire_key)), num(row.id));
    return ids;
  }
  const tasks = [...new Set(runs.map((r) => r.task.id))];
  const { rows } = await execute<{ task_id: unknown; fire_key: unknown }>(
    manager,
    `SELECT task_id, fire_key FROM runs WHERE tenant_id = ? AND task_id IN (${placeholders(tasks.length)}) AND fire_key IN (${placeholders(runs.length)})`,
    [tenantId, ...tasks, ...runs.map((r) => r.fireKey)],
  );
  const before = new Set(rows.map((r) => keyOf(num(r.task_id), String(r.fire_key))));
  await execute(manager, `INSERT INTO runs (${COLUMNS}) VALUES ${values(runs.length)} ON DUPLICATE KEY UPDATE id = id`, params);
  const fresh = runs.filter((r) => !before.has(keyOf(r.task.id, r.fireKey)));
  if (fresh.length === 0) return ids;
  return readBackIds(manager, tenantId, fresh);
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

function sentValues(count: number): string {
  return Array.from({ length: count }, () => "(?, ?, ?, 'DISPATCHED', ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ');
}

function sentValueParams(tenantId: string, runs: readonly SubmittedRun[], now: number): unknown[] {
  return runs.flatMap((r) => {
    const sent = r.sent!;
    return [tenantId, r.task.id, r.task.engineGroup, r.cause ?? 'MANUAL', r.fireKey, r.task.priority, r.params, r.flowParams, r.traceParent ?? null, now, now, now, now, sent.nodeId, sent.leaseUntil, sent.executorId, now, sent.deadlineAt];
  });
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
  const sent = run.sent === undefined ? {} : { state: 'DISPATCHED' as const, claimedBy: run.sent.nodeId, leaseUntil: run.sent.leaseUntil, executorId: run.sent.executorId, dispatchedAt: now, deadlineAt: run.sent.deadlineAt };
  return Object.assign(new RunEntity(), { id, ...row, ...sent });
}
