import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../engine-queries/sql';

/**
 * The cluster's secret `name` (cluster_secrets), made by the first process that asks for it — 32
 * random bytes, hex — so every engine, node and console of a cluster reads the same one and no
 * setting has to be copied to each:
 *
 *   SELECT secret FROM cluster_secrets WHERE name = ?
 *   INSERT IGNORE INTO cluster_secrets (name, secret, created_at) VALUES (?, ?, ?)   -- none yet (SQLite: INSERT OR IGNORE)
 *   SELECT secret FROM cluster_secrets WHERE name = ?
 *
 * Processes that find none at the same moment each insert their own; the primary key keeps the
 * first, and all of them read that one back.
 */
export async function readClusterSecret(manager: EntityManager, name: string, now: number): Promise<string> {
  const read = async () => (await execute<{ secret: string }>(manager, 'SELECT secret FROM cluster_secrets WHERE name = ?', [name])).rows[0]?.secret;
  const found = await read();
  if (found !== undefined) return found;
  const verb = dialectOf(manager) === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await execute(manager, `${verb} INTO cluster_secrets (name, secret, created_at) VALUES (?, ?, ?)`, [name, randomBytes(32).toString('hex'), now]);
  const made = await read();
  if (made === undefined) throw new Error(`cluster secret "${name}" was not stored`);
  return made;
}
