import type { EntityManager } from 'typeorm';
import { CalendarEntity, TaskEntity } from '../../entities';
import { taskEntityToDefinition } from '../../mappers';
import { insertTaskVersions } from './insert-task-versions';
import { execute, num } from '../sql';

/** Who a version kept by the engine's auto-pause names as its author (the task's History tab). */
export function autoPauseActor(failures: number): string {
  return `engine (auto-pause after ${failures} failed runs)`;
}

/**
 * Pauses a task set to pause itself (`pause_after_failures` = n) once its last n finished runs
 * all failed or timed out — in the transaction that ended the last of them:
 *
 *   SELECT pause_after_failures FROM tasks WHERE id = ? AND paused = 0
 *   SELECT state FROM runs WHERE task_id = ? AND state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT') AND cause <> 'SHARD'
 *    ORDER BY scheduled_at DESC, id DESC LIMIT n                      -- ix_runs_task_time, backwards
 *   UPDATE tasks SET paused = 1, updated_at = ?, version = version + 1 WHERE id = ? AND paused = 0
 *   SELECT * FROM tasks WHERE id = ?  (and its calendar's name)
 *   INSERT INTO task_versions (…) VALUES (…, 'engine (auto-pause after n failed runs)', …)
 *
 * The pause changes the task's definition (`paused`), so it moves `version` on and keeps that
 * version as any change does: the task's History tab lists every number, each with its author.
 * Read only when a run failed for good, so a task that succeeds costs nothing. Cancelled and
 * skipped runs are not results and do not break a streak; shards are parts of their fan-out run,
 * which is the one counted. Returns n when this call paused the
 * task, else null.
 */
export async function pauseFailingTask(manager: EntityManager, input: { taskId: number; now: number }): Promise<number | null> {
  const { rows: tasks } = await execute<{ n: unknown }>(manager, `SELECT pause_after_failures AS n FROM tasks WHERE id = ? AND paused = 0`, [input.taskId]);
  const n = tasks[0]?.n === null || tasks[0]?.n === undefined ? null : num(tasks[0].n);
  if (n === null || n < 1) return null;
  const { rows } = await execute<{ state: string }>(
    manager,
    `SELECT state FROM runs WHERE task_id = ? AND state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT') AND cause <> 'SHARD'
      ORDER BY scheduled_at DESC, id DESC LIMIT ${Math.floor(n)}`,
    [input.taskId],
  );
  if (rows.length < n || rows.some((r) => r.state === 'SUCCEEDED')) return null;
  const { affected } = await execute(manager, `UPDATE tasks SET paused = 1, updated_at = ?, version = version + 1 WHERE id = ? AND paused = 0`, [input.now, input.taskId]);
  if (affected === 0) return null;
  const task = await manager.findOneByOrFail(TaskEntity, { id: input.taskId });
  const calendar = task.calendarId === null ? null : await manager.findOne(CalendarEntity, { where: { id: task.calendarId }, select: { id: true, name: true } });
  await insertTaskVersions(manager, [
    { tenantId: task.tenantId, taskId: task.id, version: task.version, at: input.now, actorName: autoPauseActor(n), definition: taskEntityToDefinition(task, calendar?.name ?? null) },
  ]);
  return n;
}
