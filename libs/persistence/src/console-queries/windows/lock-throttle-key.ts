import type { EntityManager } from 'typeorm';
import { keyScope, type ThrottlePeriod } from '@baton/domain';
import { num, numOrNull } from '../../engine-queries/sql';
import { lockKeyRow } from '../../engine-queries/keys/lock-key-row';

/** A throttled key of a task (throttles are a task's own: a key group shares concurrency and rate keys, not these). */
export interface ThrottleKeyRef {
  tenantId: string;
  taskId: number;
  key: string;
}

/**
 * A throttled key's row lock, for the rest of the caller's transaction, and its current period:
 *
 *   INSERT INTO run_keys (tenant_id, key_scope, key_value, used_at) VALUES (?, 't:<taskId>', ?, ?)
 *     ON DUPLICATE KEY UPDATE used_at = …                                          -- lockKeyRow
 *   SELECT throttle_started_at, throttle_count, throttle_trailing_at FROM run_keys
 *    WHERE tenant_id = ? AND key_scope = 't:<taskId>' AND key_value = ? FOR UPDATE -- primary key
 *
 * The key's row (run_keys, shared with its task's own concurrency and rate bounds) serialises the decisions
 * of one key across consoles: two submissions of the key never both take the period's last place.
 * Other keys never wait for it. Callers lock several keys in one sorted order, so two never
 * deadlock. Null: the key was never throttled (a fresh period).
 */
export async function lockThrottleKey(manager: EntityManager, ref: ThrottleKeyRef, now: number): Promise<ThrottlePeriod | null> {
  const row = await lockKeyRow(manager, { tenantId: ref.tenantId, scope: keyScope(ref.taskId), key: ref.key }, ['throttle_started_at', 'throttle_count', 'throttle_trailing_at'], now);
  if (!row || row.throttle_started_at === null || row.throttle_started_at === undefined) return null;
  return { startedAt: num(row.throttle_started_at), count: num(row.throttle_count), trailingAt: numOrNull(row.throttle_trailing_at) };
}
