import type { EntityManager } from 'typeorm';
import { caseById, execute, placeholders } from '../sql';

/**
 * The repeats counted into alarms (findAlarmToCountInto), alarm id → repeats, in one statement;
 * each goes back into the outbox (published again: same id, new count) unless a publish of it
 * went out after `republishIfPublishedBy` — one from any engine, so an alarm counted into by every
 * engine of the cluster still goes out at most once a COUNT_PUBLISH_EVERY_MS, not once per engine:
 *
 *   UPDATE alarms SET published_at = CASE WHEN acked_at IS NULL AND published_at <= ? THEN NULL ELSE published_at END,
 *                     count = count + <repeats by id: caseById>
 *    WHERE id IN (…)
 *
 * (An unpublished one stays in the outbox: it goes out with its count as it is then.) One
 * acknowledged since its repeats were found keeps them in its count (they were raised before the
 * ack) and is not published again. Returns the ids left behind (alarmsBehind): published within
 * the window with a count short of this one, for the caller to put back when the window is over.
 */
export async function addAlarmCounts(manager: EntityManager, counts: ReadonlyMap<number, number>, republishIfPublishedBy: number): Promise<number[]> {
  if (counts.size === 0) return [];
  const entries = [...counts];
  const repeats = caseById(entries, ([id]) => id, ([, n]) => n);
  await execute(
    manager,
    `UPDATE alarms SET published_at = CASE WHEN acked_at IS NULL AND published_at <= ? THEN NULL ELSE published_at END,
                       count = count + ${repeats.sql}
      WHERE id IN (${placeholders(entries.length)})`,
    [republishIfPublishedBy, ...repeats.params, ...entries.map(([id]) => id)],
  );
  return alarmsBehind(manager, entries.map(([id]) => id));
}

/**
 * Puts back into the outbox those of `ids` whose count went up since their last publish, if that
 * publish went out by `republishIfPublishedBy` (a count withheld by addAlarmCounts, its window over):
 *
 *   UPDATE alarms SET published_at = NULL
 *    WHERE id IN (…) AND acked_at IS NULL AND published_at <= ? AND (published_count IS NULL OR count > published_count)
 *
 * A publish since (another engine's) that carried the count leaves the alarm as it is. Returns the
 * ids still behind (published again within the window, short of their count).
 */
export async function republishAlarmsBehind(manager: EntityManager, ids: readonly number[], republishIfPublishedBy: number): Promise<number[]> {
  if (ids.length === 0) return [];
  await execute(
    manager,
    `UPDATE alarms SET published_at = NULL
      WHERE id IN (${placeholders(ids.length)}) AND acked_at IS NULL AND published_at <= ? AND (published_count IS NULL OR count > published_count)`,
    [...ids, republishIfPublishedBy],
  );
  return alarmsBehind(manager, ids);
}

/**
 * Those of `ids` published (not in the outbox), unacknowledged, whose count is above the one
 * their last publish carried:
 *
 *   SELECT id FROM alarms WHERE id IN (…) AND published_at IS NOT NULL AND acked_at IS NULL
 *     AND (published_count IS NULL OR count > published_count)
 */
export async function alarmsBehind(manager: EntityManager, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await execute<{ id: number | string }>(
    manager,
    `SELECT id FROM alarms WHERE id IN (${placeholders(ids.length)}) AND published_at IS NOT NULL AND acked_at IS NULL
       AND (published_count IS NULL OR count > published_count)`,
    [...ids],
  );
  return rows.map((r) => Number(r.id));
}
