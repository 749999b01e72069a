import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * A repeat counted into an open alarm (findAlarmToCountInto) that gives it its own message and
 * data, in the repeat's transaction: what stands now, not what the first said (CLOCK_SKEW: a
 * later episode the other way, or one that stopped the engine's claims). It goes out with the
 * alarm's new count (addAlarmCounts puts it back into the outbox):
 *
 *   UPDATE alarms SET message = ?, data = ? WHERE id = ? AND acked_at IS NULL
 */
export async function refreshAlarmText(manager: EntityManager, input: { id: number; message: string; dataJson: string | null }): Promise<void> {
  await execute(manager, 'UPDATE alarms SET message = ?, data = ? WHERE id = ? AND acked_at IS NULL', [input.message, input.dataJson, input.id]);
}
