import type { EntityManager } from 'typeorm';
import { caseById, execute, placeholders } from '../sql';

/**
 * The repeats counted into alarms (findAlarmToCountInto), alarm id → repeats, in one statement;
 * those in `requeue` go back into the outbox:
 *
 *   UPDATE alarms SET count = count + <repeats by id: caseById>,
 *                     published_at = CASE WHEN acked_at IS NULL AND id IN (<requeue>) THEN NULL ELSE published_at END
 *    WHERE id IN (…)
 *
 * An unacknowledged alarm put back (published_at NULL) is published again by the relay, same id,
 * new count, and the console's pop-up of that alarm shows the count instead of a new pop-up. The
 * others keep their repeats for their next publish (the caller bounds how often an alarm goes
 * back: AlarmCounts). One acknowledged since its repeats were found keeps them in its count (they
 * were raised before the ack) and is not published again.
 */
export async function addAlarmCounts(manager: EntityManager, counts: ReadonlyMap<number, number>, requeue: ReadonlySet<number>): Promise<void> {
  if (counts.size === 0) return;
  const entries = [...counts];
  const repeats = caseById(entries, ([id]) => id, ([, n]) => n);
  const back = [...requeue];
  await execute(
    manager,
    `UPDATE alarms SET count = count + ${repeats.sql},
                       published_at = ${back.length ? `CASE WHEN acked_at IS NULL AND id IN (${placeholders(back.length)}) THEN NULL ELSE published_at END` : 'published_at'}
      WHERE id IN (${placeholders(entries.length)})`,
    [...repeats.params, ...back, ...entries.map(([id]) => id)],
  );
}
