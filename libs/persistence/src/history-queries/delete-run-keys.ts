import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';

/**
 * Deletes key rows found at rest, unless a run took them since they were read:
 *
 *   DELETE FROM run_keys WHERE tenant_id = ? AND ((key_scope = ? AND key_value = ?) OR …)
 *     AND (used_at IS NULL OR used_at < ?)                                       -- primary key
 *
 * `before` is the purge's cutoff: a lock since then moved used_at past it (lockKeyRow writes it
 * when older than KEY_USE_STEP_MS, far less than the cutoff's age), and the DELETE, a locking read,
 * waits for that lock's commit and then leaves the row. A row deleted under a key's next run is
 * made again by its lock, fresh — which is what a row at rest was. Returns the rows deleted.
 */
export async function deleteRunKeys(manager: EntityManager, input: { tenantId: string; keys: ReadonlyArray<{ scope: string; key: string }>; before: number }): Promise<number> {
  if (input.keys.length === 0) return 0;
  const { affected } = await execute(
    manager,
    `DELETE FROM run_keys WHERE tenant_id = ? AND (${input.keys.map(() => '(key_scope = ? AND key_value = ?)').join(' OR ')}) AND (used_at IS NULL OR used_at < ?)`,
    [input.tenantId, ...input.keys.flatMap((k) => [k.scope, k.key]), input.before],
  );
  return affected;
}
