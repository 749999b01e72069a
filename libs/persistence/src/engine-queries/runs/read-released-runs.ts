import type { EntityManager } from 'typeorm';
import { sendAhead } from '../riders';
import { placeholders } from '../sql';
import { claimedRunColumns } from './claim-due-runs';
import { claimedRunTaskColumns } from './find-claimed-run-tasks';
import type { NamedRunColumns } from './read-named-runs';

/**
 * The runs a key's release has just moved HELD → PENDING (releaseHeldKeyRuns), with their tasks, in
 * the form a console's wake-up carries its runs (namedRunColumns):
 *
 *   SELECT r.id, …, t.id AS t_id, … FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
 *    WHERE r.id IN (…) AND r.state = 'PENDING'
 *
 * Sent ahead (riders.ts): it rides with the release's COMMIT, and the claim by id the release wakes
 * takes these rows (WokenRows) instead of reading them back (readNamedRuns): a flooded key's
 * hand-over is a round trip shorter. Read in the release's transaction, after its UPDATE: the rows
 * as they are committed.
 */
export async function readReleasedRuns(manager: EntityManager, ids: readonly number[]): Promise<NamedRunColumns[]> {
  if (ids.length === 0) return [];
  return (await sendAhead(
    manager,
    `SELECT ${claimedRunColumns('r')}, ${claimedRunTaskColumns('t', 't_')}
       FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id IN (${placeholders(ids.length)}) AND r.state = 'PENDING'`,
    [...ids],
  )) as NamedRunColumns[];
}
