import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../sql';

/**
 * A key's run_keys row (one per tenant, task and key value), made the first time and locked for
 * the rest of the caller's transaction; answers `columns` of it:
 *
 *   INSERT INTO run_keys (tenant_id, task_id, key_value) VALUES (?, ?, ?)
 *     ON DUPLICATE KEY UPDATE key_value = key_value                               -- SQLite: INSERT OR IGNORE
 *   SELECT <columns> FROM run_keys WHERE tenant_id = ? AND task_id = ? AND key_value = ? FOR UPDATE
 *
 * A concurrent first INSERT of the same key waits for the other's commit. On a key that exists the
 * INSERT takes the row's exclusive lock at once (ON DUPLICATE KEY UPDATE; INSERT IGNORE took a
 * shared one, and transactions that all held it and then asked FOR UPDATE deadlocked each other:
 * 8 submissions of one key at once failed under load in key-windows.spec). SQLite: serialised
 * transactions, no FOR UPDATE. The one way a key's row is locked, by the
 * engines' key admissions (lockRunKey) and the consoles' throttles (lockThrottleKey) alike.
 */
export async function lockKeyRow(manager: EntityManager, ref: { tenantId: string; taskId: number; key: string }, columns: readonly string[]): Promise<Record<string, unknown> | undefined> {
  const mysql = dialectOf(manager) === 'mysql';
  const params = [ref.tenantId, ref.taskId, ref.key];
  await execute(
    manager,
    mysql
      ? 'INSERT INTO run_keys (tenant_id, task_id, key_value) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE key_value = key_value'
      : 'INSERT OR IGNORE INTO run_keys (tenant_id, task_id, key_value) VALUES (?, ?, ?)',
    params,
  );
  const { rows } = await execute<Record<string, unknown>>(manager, `SELECT ${columns.join(', ')} FROM run_keys WHERE tenant_id = ? AND task_id = ? AND key_value = ? ${mysql ? 'FOR UPDATE' : ''}`, params);
  return rows[0];
}
