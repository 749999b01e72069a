import type { EntityManager } from 'typeorm';
import { sendAhead, sendWriteAhead } from '../riders';
import { dialectOf } from '../sql';

/** How stale a key row's `used_at` may get before a lock writes it again: most locks of a busy key write nothing. */
export const KEY_USE_STEP_MS = 60_000;

/** A key's row: its tenant, whose key it is (domain keyScope: `t:<taskId>` or `g:<group>`) and its value. */
export interface KeyRowRef {
  tenantId: string;
  scope: string;
  key: string;
}

/**
 * A key's run_keys row (one per tenant, scope and key value), made the first time and locked for
 * the rest of the caller's transaction; answers `columns` of it:
 *
 *   INSERT INTO run_keys (tenant_id, key_scope, key_value, used_at) VALUES (?, ?, ?, <now>)
 *     ON DUPLICATE KEY UPDATE used_at = IF(used_at IS NULL OR used_at < <now − KEY_USE_STEP_MS>, <now>, used_at)
 *     -- SQLite: ON CONFLICT (tenant_id, key_scope, key_value) DO UPDATE SET used_at = CASE … END
 *   SELECT <columns> FROM run_keys WHERE tenant_id = ? AND key_scope = ? AND key_value = ? FOR UPDATE
 *
 * A concurrent first INSERT of the same key waits for the other's commit. On a key that exists the
 * INSERT takes the row's exclusive lock at once (ON DUPLICATE KEY UPDATE; INSERT IGNORE took a
 * shared one, and transactions that all held it and then asked FOR UPDATE deadlocked each other:
 * 8 submissions of one key at once failed under load in key-windows.spec). `used_at` tells the
 * retention purge which rows no run has taken lately (history-queries/find-unused-run-keys.ts); moved only when a
 * minute old, so a busy key's row is not rewritten each time. SQLite: serialised transactions, no
 * FOR UPDATE. The one way a key's row is locked, by the engines' key admissions (lockRunKey) and
 * the consoles' throttles (lockThrottleKey) alike.
 *
 * Both statements are sent ahead (riders.ts): in a transaction of inTransaction on MySQL they ride
 * together, with whatever the caller issues before awaiting (the key's count, its held runs: a
 * key's release is three round trips where it was seven), and the locks of several keys issued in
 * one order go in one packet, in that order.
 */
export async function lockKeyRow(
  manager: EntityManager,
  ref: KeyRowRef,
  columns: readonly string[],
  now: number,
): Promise<Record<string, unknown> | undefined> {
  const mysql = dialectOf(manager) === 'mysql';
  const params = [ref.tenantId, ref.scope, ref.key];
  const made = sendWriteAhead(
    manager,
    mysql
      ? 'INSERT INTO run_keys (tenant_id, key_scope, key_value, used_at) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE used_at = IF(used_at IS NULL OR used_at < ?, ?, used_at)'
      : 'INSERT INTO run_keys (tenant_id, key_scope, key_value, used_at) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, key_scope, key_value) DO UPDATE SET used_at = CASE WHEN used_at IS NULL OR used_at < ? THEN ? ELSE used_at END',
    [...params, now, now - KEY_USE_STEP_MS, now],
  );
  const locked = sendAhead(manager, `SELECT ${columns.join(', ')} FROM run_keys WHERE tenant_id = ? AND key_scope = ? AND key_value = ? ${mysql ? 'FOR UPDATE' : ''}`, params);
  const [, rows] = await Promise.all([made, locked]);
  return rows[0];
}
