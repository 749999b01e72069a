import type { EntityManager } from 'typeorm';
import type { MisfirePolicy, RepeatedTimePolicy, SkippedTimePolicy, TriggerKind } from '@baton/domain';
import { execute, num, numOrNull, skipLocked, dialectOf } from '../sql';
import type { Dialect } from '../sql';

/** A task the planner holds (row-locked on MySQL) for the rest of its transaction. */
export interface DueTaskRow {
  id: number;
  tenantId: string;
  engineGroup: string;
  triggerKind: TriggerKind;
  cronExpression: string | null;
  timeZone: string | null;
  cronRepeatedTime: RepeatedTimePolicy | null;
  cronSkippedTime: SkippedTimePolicy | null;
  intervalMs: number | null;
  onceAt: number | null;
  startAt: number | null;
  endAt: number | null;
  maxFires: number | null;
  fireCount: number;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  priority: number;
  /** The params column as stored (JSON text): copied into the run rows as is, never re-serialised. */
  paramsJson: string;
  calendarId: number | null;
  nextFireAt: number;
  createdAt: number;
}

/**
 * The planner's claim: tasks of the given engine groups whose next fire time falls within the
 * look-ahead, oldest first, up to `limit`, locked for this transaction.
 *
 *   SELECT … FROM tasks
 *    WHERE engine_group = ? AND paused = 0 AND next_fire_at <= ? AND trigger_kind <> 'MANUAL'
 *    ORDER BY next_fire_at LIMIT ? FOR UPDATE SKIP LOCKED
 *
 * Shape, and why:
 * - One statement per engine group, not `engine_group IN (…)`: with one group the range on
 *   ix_tasks_plan (engine_group, paused, next_fire_at) is read in next_fire_at order and LIMIT
 *   stops the scan; an IN list makes several ranges, MySQL must filesort them, and a filesort
 *   reads — and locks — every due task before LIMIT applies (see claim-due-runs.ts for the
 *   measurement on runs). The groups' results are simply concatenated.
 * - SKIP LOCKED: two planners never plan the same task at once and never wait for each other;
 *   each takes the next unlocked due tasks. The unique key on runs (task_id, fire_key) stays the
 *   last line of defence whatever happens (insert-planned-runs.ts).
 * - MANUAL tasks never have a next fire time (firstFireTime returns null), so `next_fire_at <= ?`
 *   already excludes them; the explicit test guards against a row edited behind the console.
 * - Paused tasks (one by one, or their whole task group) are just `paused = 1`.
 * - On SQLite there is no row locking: one engine only, and transactions are serialised.
 */
/** The task claim for one engine group — exported so the plan test EXPLAINs this very text. */
export function claimDueTasksSql(dialect: Dialect): string {
  return `SELECT id, tenant_id, engine_group, trigger_kind, cron_expression, time_zone, cron_repeated_time, cron_skipped_time,
                 interval_ms, once_at, start_at, end_at, max_fires, fire_count, misfire_policy, misfire_threshold_ms, priority,
                 params, calendar_id, next_fire_at, created_at
            FROM tasks
           WHERE engine_group = ? AND paused = 0 AND next_fire_at <= ? AND trigger_kind <> 'MANUAL'
           ORDER BY next_fire_at
           LIMIT ?
           ${skipLocked(dialect)}`;
}

export async function claimDueTasks(manager: EntityManager, input: { groups: readonly string[]; horizon: number; limit: number }): Promise<DueTaskRow[]> {
  const sql = claimDueTasksSql(dialectOf(manager));
  const out: DueTaskRow[] = [];
  for (const group of input.groups) {
    const remaining = input.limit - out.length;
    if (remaining <= 0) break;
    const { rows } = await execute<Record<string, unknown>>(manager, sql, [group, input.horizon, remaining]);
    for (const r of rows) out.push(toDueTask(r));
  }
  return out;
}

function toDueTask(r: Record<string, unknown>): DueTaskRow {
  return {
    id: num(r.id),
    tenantId: String(r.tenant_id),
    engineGroup: String(r.engine_group),
    triggerKind: r.trigger_kind as TriggerKind,
    cronExpression: (r.cron_expression as string | null) ?? null,
    timeZone: (r.time_zone as string | null) ?? null,
    cronRepeatedTime: (r.cron_repeated_time as RepeatedTimePolicy | null) ?? null,
    cronSkippedTime: (r.cron_skipped_time as SkippedTimePolicy | null) ?? null,
    intervalMs: numOrNull(r.interval_ms),
    onceAt: numOrNull(r.once_at),
    startAt: numOrNull(r.start_at),
    endAt: numOrNull(r.end_at),
    maxFires: numOrNull(r.max_fires),
    fireCount: num(r.fire_count),
    misfirePolicy: r.misfire_policy as MisfirePolicy,
    misfireThresholdMs: num(r.misfire_threshold_ms),
    priority: num(r.priority),
    paramsJson: String(r.params),
    calendarId: numOrNull(r.calendar_id),
    nextFireAt: num(r.next_fire_at),
    createdAt: num(r.created_at),
  };
}
