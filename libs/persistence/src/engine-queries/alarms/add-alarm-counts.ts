import type { EntityManager } from 'typeorm';
import { caseById, execute, placeholders } from '../sql';

/**
 * The repeats counted into alarms (findAlarmToCountInto), alarm id → repeats, in one statement:
 *
 *   UPDATE alarms SET count = count + <repeats by id: caseById>,
 *                     published_at = CASE WHEN acked_at IS NULL THEN NULL ELSE published_at END
 *    WHERE id IN (…)
 *
 * An unacknowledged alarm goes back into the outbox (published_at NULL): the relay publishes it
 * again, same id, new count, and the console's pop-up of that alarm shows the count instead of a
 * new pop-up. One acknowledged since its repeats were found keeps them in its count (they were
 * raised before the ack) and is not published again.
 */
export async function addAlarmCounts(manager: EntityManager, counts: ReadonlyMap<number, number>): Promise<void> {
  if (counts.size === 0) return;
  const entries = [...counts];
  const repeats = caseById(entries, ([id]) => id, ([, n]) => n);
  await execute(
    manager,
    `UPDATE alarms SET count = count + ${repeats.sql},
                       published_at = CASE WHEN acked_at IS NULL THEN NULL ELSE published_at END
      WHERE id IN (${placeholders(entries.length)})`,
    [...repeats.params, ...entries.map(([id]) => id)],
  );
}
