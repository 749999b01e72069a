import type { EntityManager } from 'typeorm';
import type { KeyConcurrency } from '@baton/domain';
import { execute } from '../sql';

/**
 * A task's concurrency bound as it is now, when a key's places are given back:
 *
 *   SELECT key_concurrency FROM tasks WHERE id = ?
 *
 * Null when the task has none any more, or is gone: then its held runs are all released.
 */
export async function findKeyConcurrency(manager: EntityManager, taskId: number): Promise<KeyConcurrency | null> {
  const { rows } = await execute<{ key_concurrency: unknown }>(manager, 'SELECT key_concurrency FROM tasks WHERE id = ?', [taskId]);
  const text = rows[0]?.key_concurrency;
  return text === null || text === undefined ? null : (JSON.parse(String(text)) as KeyConcurrency);
}
