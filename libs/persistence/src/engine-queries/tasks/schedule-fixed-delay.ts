import type { EntityManager } from 'typeorm';
import { nextFixedDelayFire, type Schedule } from '@baton/domain';
import { findCalendars } from '../calendars/find-calendars';
import { execute, num, numOrNull } from '../sql';

/**
 * The schedule of a FIXED_DELAY task, or null when the task is of another kind (or gone):
 *
 *   SELECT interval_ms, start_at, end_at, max_fires, fire_count, calendar_id, created_at
 *     FROM tasks WHERE id = ? AND trigger_kind = 'FIXED_DELAY'
 *
 * (+ its exclusion calendar). Input of nextFixedDelayFire when a run of the task has finished.
 */
export async function findFixedDelaySchedule(manager: EntityManager, taskId: number): Promise<Schedule | null> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT interval_ms, start_at, end_at, max_fires, fire_count, calendar_id, created_at
       FROM tasks WHERE id = ? AND trigger_kind = 'FIXED_DELAY'`,
    [taskId],
  );
  if (rows.length === 0) return null;
  const t = rows[0];
  const calendarId = numOrNull(t.calendar_id);
  const calendar = calendarId === null ? null : ((await findCalendars(manager, [calendarId])).get(calendarId) ?? null);
  return {
    trigger: { kind: 'FIXED_DELAY', delayMs: num(t.interval_ms) },
    startAt: numOrNull(t.start_at),
    endAt: numOrNull(t.end_at),
    maxFires: numOrNull(t.max_fires),
    fireCount: num(t.fire_count),
    calendar,
    createdAt: num(t.created_at),
  };
}

/**
 * Hands a FIXED_DELAY task back to the planner: its next fire is `delay` after the run that
 * just finished.
 *
 *   UPDATE tasks SET next_fire_at = ? WHERE id = ? AND trigger_kind = 'FIXED_DELAY' AND next_fire_at IS NULL
 *
 * The planner leaves next_fire_at NULL after planning a FIXED_DELAY fire ("waiting for its
 * run"); `IS NULL` makes this the only writer of the next one, once per finished scheduled run —
 * a duplicate callback or a concurrent manual run cannot start a second chain. Like the
 * planner's own advance, it moves neither updated_at nor version (those are the console's).
 */
export async function setFixedDelayNextFire(manager: EntityManager, taskId: number, nextFireAt: number): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE tasks SET next_fire_at = ? WHERE id = ? AND trigger_kind = 'FIXED_DELAY' AND next_fire_at IS NULL`,
    [nextFireAt, taskId],
  );
  return affected > 0;
}

/**
 * A FIXED_DELAY task's chain goes on after one of its scheduled runs ended at `endedAt`, however it
 * ended (an engine's callback, a user's cancel): the next fire a delay later (domain
 * nextFixedDelayFire over `schedule`, findFixedDelaySchedule's), stored by setFixedDelayNextFire.
 * The fire stored, or null (none left, or the chain had its next fire already).
 */
export async function continueFixedDelayChain(manager: EntityManager, taskId: number, schedule: Schedule, endedAt: number): Promise<number | null> {
  const next = nextFixedDelayFire(schedule, endedAt);
  if (next === null) return null;
  return (await setFixedDelayNextFire(manager, taskId, next)) ? next : null;
}

/**
 * Why a run exists (`SELECT cause FROM runs WHERE id = ?`), for callers that hold a run without
 * it: only SCHEDULE runs drive a FIXED_DELAY task's chain. null: no such run.
 */
export async function findRunCause(manager: EntityManager, runId: number): Promise<string | null> {
  const { rows } = await execute<{ cause: string }>(manager, 'SELECT cause FROM runs WHERE id = ?', [runId]);
  return rows.length ? rows[0].cause : null;
}
