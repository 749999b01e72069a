import type { EntityManager } from 'typeorm';
import { num } from '../sql';
import { lockKeyRow, type KeyRowRef } from './lock-key-row';

/** One concurrency or rate key: of a task (scope `t:<taskId>`) or of a key group (`g:<group>`). */
export type RunKeyRef = KeyRowRef;

/** A key's token bucket as stored (thousandths of a token); null until a rate limit first used it. */
export interface StoredKeyBucket {
  tokensMilli: number;
  refilledAt: number;
}

/**
 * The key's mutex, taken for the rest of the caller's transaction, and its token bucket:
 *
 *   INSERT INTO run_keys (tenant_id, key_scope, key_value, used_at) VALUES (?, ?, ?, ?)
 *     ON DUPLICATE KEY UPDATE used_at = …                                          -- lockKeyRow
 *   SELECT tokens_milli, refilled_at FROM run_keys WHERE tenant_id = ? AND key_scope = ? AND key_value = ? FOR UPDATE
 *
 * A row per key, locked by primary key: whoever admits runs of the key or gives its places to
 * held runs does so holding it, so two engines never both count a free place and fill it twice —
 * a key group's key is one row whichever of its tasks' runs come; runs of other keys (and
 * tenants) never wait for it — no task-, group- or table-wide lock. The INSERT makes the key's row
 * the first time; a concurrent first INSERT of the same key waits for the other's commit and is
 * then ignored. SQLite: one engine, serialised transactions, no FOR UPDATE. Callers holding
 * several keys take them in (tenant, scope, key) order, so two never deadlock.
 */
export async function lockRunKey(manager: EntityManager, ref: RunKeyRef, now: number): Promise<StoredKeyBucket | null> {
  const row = await lockKeyRow(manager, ref, ['tokens_milli', 'refilled_at'], now);
  return row && row.tokens_milli !== null && row.refilled_at !== null ? { tokensMilli: num(row.tokens_milli), refilledAt: num(row.refilled_at) } : null;
}
