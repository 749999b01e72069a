import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../sql';

/**
 * Creates engine group `name` unless it exists; true when this call created it. An engine
 * creates the groups it serves at start, so a fresh cluster needs no manual step before its
 * first tenant.
 *
 * Why INSERT IGNORE / INSERT OR IGNORE rather than "SELECT, then INSERT when missing": two
 * engines of a new group start together, both see no row, and the second INSERT would fail on
 * the primary key and abort that engine's start. The ignoring insert makes the loser a no-op in
 * one statement on both dialects. (MySQL's IGNORE also downgrades other errors to warnings, but
 * the only constraint `engine_groups` has is its primary key, and the values are validated
 * engine configuration.) Run it in its own short transaction: on MariaDB the duplicate check
 * takes a lock on the key that would otherwise be held for the caller's whole transaction.
 */
export async function insertMissingEngineGroup(manager: EntityManager, group: { name: string; description: string; createdAt: number }): Promise<boolean> {
  const verb = dialectOf(manager) === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  const result = await execute(manager, `${verb} INTO engine_groups (name, description, created_at) VALUES (?, ?, ?)`, [
    group.name,
    group.description,
    group.createdAt,
  ]);
  return result.affected > 0;
}
