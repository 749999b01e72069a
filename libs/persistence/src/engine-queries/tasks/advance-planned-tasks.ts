import type { EntityManager } from 'typeorm';
import { caseById, chunks, execute, placeholders } from '../sql';

export interface TaskAdvance {
  taskId: number;
  /** The first fire time not yet planned; null: nothing left (maxFires, endAt, FIXED_DELAY waiting for its run). */
  nextFireAt: number | null;
  /** Fire times consumed by this plan (run, folded into a FIRE_ONCE_NOW run, or skipped). */
  firesConsumed: number;
}

/**
 * Moves the planned tasks past what was just planned, all of them in one statement:
 *
 *   UPDATE tasks
 *      SET next_fire_at = <by id>,
 *          fire_count   = fire_count + <by id>
 *    WHERE id IN (…)
 *   -- <by id>: each row's own value (caseById: `?` when all rows share it)
 *
 * One statement per batch instead of one per task: the tasks are already row-locked by the
 * claim (claimDueTasks), so this is pure write cost, and one round trip beats two hundred.
 * `fire_count + n` adds what this plan consumed to whatever the row holds, rather than writing
 * back a total computed from the row as it was read.
 *
 * Neither `updated_at` nor `version` moves: they describe the definition as edited by people,
 * and bumping `version` every plan would make the console's optimistic lock refuse every edit
 * of a task that fires each second. The console's edit reads then writes with
 * `WHERE version = ?`; an edit that rewrites next_fire_at from a stale read can only make the
 * planner re-plan fire times whose runs exist — the unique key ignores those.
 */
export async function advancePlannedTasks(manager: EntityManager, advances: readonly TaskAdvance[]): Promise<void> {
  for (const chunk of chunks(advances)) {
    const next = caseById(chunk, (a) => a.taskId, (a) => a.nextFireAt);
    const fires = caseById(chunk, (a) => a.taskId, (a) => a.firesConsumed);
    await execute(
      manager,
      `UPDATE tasks
          SET next_fire_at = ${next.sql},
              fire_count = fire_count + ${fires.sql}
        WHERE id IN (${placeholders(chunk.length)})`,
      [...next.params, ...fires.params, ...chunk.map((a) => a.taskId)],
    );
  }
}
