import type { EntityManager } from 'typeorm';
import { chunks, execute, num } from '../sql';

/** A task's stretch of fire times the planner is about to walk. */
export interface FireStretch {
  taskId: number;
  from: number;
  to: number;
}

/**
 * The fire times in each stretch that have a run already (domain planFires' `taken`), by task:
 *
 *   SELECT task_id, fire_key FROM runs
 *    WHERE (task_id = ? AND fire_key BETWEEN 's:<from>' AND 's:<to>') OR …
 *
 * Ranges of the unique key (task_id, fire_key): a scheduled fire's key is `s:` and its epoch
 * milliseconds, 13 digits from 2001 to 2286, so the keys of a stretch sort as their times do (a
 * key of another length that falls in the range is dropped by the bounds check below). Asked for
 * tasks with a maxFires only, the ones whose fire count decides anything.
 */
export async function findTakenFireTimes(manager: EntityManager, stretches: readonly FireStretch[]): Promise<Map<number, Set<number>>> {
  const taken = new Map<number, Set<number>>();
  for (const part of chunks(stretches)) {
    const { rows } = await execute<{ task_id: unknown; fire_key: unknown }>(
      manager,
      `SELECT task_id, fire_key FROM runs WHERE ${part.map(() => '(task_id = ? AND fire_key BETWEEN ? AND ?)').join(' OR ')}`,
      part.flatMap((s) => [s.taskId, `s:${s.from}`, `s:${s.to}`]),
    );
    const byTask = new Map(part.map((s) => [s.taskId, s]));
    for (const r of rows) {
      const taskId = num(r.task_id);
      const at = Number(String(r.fire_key).slice(2));
      const stretch = byTask.get(taskId);
      if (!stretch || !Number.isSafeInteger(at) || at < stretch.from || at > stretch.to) continue;
      let times = taken.get(taskId);
      if (!times) taken.set(taskId, (times = new Set()));
      times.add(at);
    }
  }
  return taken;
}
