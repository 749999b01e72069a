import type { EntityManager } from 'typeorm';
import type { KeyConcurrency } from '@baton/domain';
import { sendAhead } from '../riders';
import { num, placeholders } from '../sql';

/**
 * Tasks' concurrency bounds as they are now, when a key's places are given back to its held runs
 * (of a key group's key, runs of several tasks):
 *
 *   SELECT id, key_concurrency FROM tasks WHERE id IN (…)
 *
 * A task without a bound any more, or gone, is missing from the map: its held runs are released.
 * Sent ahead (riders.ts): in a transaction it rides with what is issued before it is awaited.
 */
export async function findKeyConcurrencies(manager: EntityManager, taskIds: readonly number[]): Promise<Map<number, KeyConcurrency>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sendAhead(manager, `SELECT id, key_concurrency FROM tasks WHERE id IN (${placeholders(taskIds.length)})`, [...taskIds]);
  const bounds = new Map<number, KeyConcurrency>();
  for (const r of rows) {
    // JSON null is no bound either, as SQL NULL (migration 1798700000000).
    const bound = r.key_concurrency === null || r.key_concurrency === undefined ? null : (JSON.parse(String(r.key_concurrency)) as KeyConcurrency | null);
    if (bound !== null) bounds.set(num(r.id), bound);
  }
  return bounds;
}
