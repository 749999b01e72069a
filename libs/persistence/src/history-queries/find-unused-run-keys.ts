import type { EntityManager } from 'typeorm';
import type { KeyRateLimit, KeyThrottle, StoredKeyState } from '@baton/domain';
import { execute, num, numOrNull, placeholders } from '../engine-queries/sql';

/**
 * A key's row no run has taken lately, with what it stores and the bounds now of the task that
 * wrote it (rules_task_id; null: none, or the task is gone).
 */
export interface UnusedRunKey {
  scope: string;
  key: string;
  usedAt: number | null;
  stored: StoredKeyState;
  rules: { rateLimit: KeyRateLimit | null; throttle: KeyThrottle | null };
}

/**
 * Up to `limit` of the tenant's key rows no run has taken since `before`, least recently used
 * first, after `after` (the pass's cursor), with the bounds of the tasks that wrote them:
 *
 *   SELECT key_scope, key_value, rules_task_id, used_at, tokens_milli, refilled_at, throttle_started_at, throttle_count, throttle_trailing_at
 *     FROM run_keys WHERE tenant_id = ? AND (used_at IS NULL OR used_at < ?) AND <after the cursor>
 *    ORDER BY used_at, key_scope, key_value LIMIT ?                               -- ix_run_keys_rest
 *   SELECT id, key_rate, key_throttle FROM tasks WHERE id IN (…)                  -- primary key
 *
 * The cursor is (used_at, key_scope, key_value) of the last row read (NULL used_at first), the
 * index's own order (its entries end with the primary key): a batch of rows not at rest yet (a
 * slow bucket) is stepped over, not read again for ever. A key group's row is told at rest by the
 * rules of the task whose run last took its tokens: the group has no rules of its own.
 */
export async function findUnusedRunKeys(
  manager: EntityManager,
  input: { tenantId: string; before: number; after: { usedAt: number | null; scope: string; key: string } | null; limit: number },
): Promise<UnusedRunKey[]> {
  const { after } = input;
  // (used_at, key_scope, key_value) > the cursor's, NULL used_at sorting first as MariaDB and SQLite sort it.
  const cursor =
    after === null
      ? { sql: '', params: [] as unknown[] }
      : after.usedAt === null
        ? { sql: 'AND (used_at IS NOT NULL OR key_scope > ? OR (key_scope = ? AND key_value > ?))', params: [after.scope, after.scope, after.key] }
        : { sql: 'AND used_at IS NOT NULL AND (used_at > ? OR (used_at = ? AND (key_scope > ? OR (key_scope = ? AND key_value > ?))))', params: [after.usedAt, after.usedAt, after.scope, after.scope, after.key] };
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT key_scope, key_value, rules_task_id, used_at, tokens_milli, refilled_at, throttle_started_at, throttle_count, throttle_trailing_at
       FROM run_keys WHERE tenant_id = ? AND (used_at IS NULL OR used_at < ?) ${cursor.sql}
      ORDER BY used_at, key_scope, key_value LIMIT ?`,
    [input.tenantId, input.before, ...cursor.params, input.limit],
  );
  if (rows.length === 0) return [];
  const taskIds = [...new Set(rows.map((r) => numOrNull(r.rules_task_id)).filter((id) => id !== null))];
  // Rows no bound wrote (a concurrency key's) name no task: none to read.
  const { rows: tasks } =
    taskIds.length === 0
      ? { rows: [] }
      : await execute<{ id: unknown; key_rate: string | null; key_throttle: string | null }>(manager, `SELECT id, key_rate, key_throttle FROM tasks WHERE id IN (${placeholders(taskIds.length)})`, taskIds);
  const rules = new Map(tasks.map((t) => [num(t.id), { rateLimit: parse<KeyRateLimit>(t.key_rate), throttle: parse<KeyThrottle>(t.key_throttle) }]));
  return rows.map((r) => {
    const tokensMilli = numOrNull(r.tokens_milli);
    const refilledAt = numOrNull(r.refilled_at);
    const startedAt = numOrNull(r.throttle_started_at);
    return {
      scope: String(r.key_scope),
      key: String(r.key_value),
      usedAt: numOrNull(r.used_at),
      stored: {
        bucket: tokensMilli === null || refilledAt === null ? null : { tokens: tokensMilli / 1000, at: refilledAt },
        throttle: startedAt === null ? null : { startedAt, count: num(r.throttle_count), trailingAt: numOrNull(r.throttle_trailing_at) },
      },
      rules: rules.get(numOrNull(r.rules_task_id) ?? 0) ?? { rateLimit: null, throttle: null },
    };
  });
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T | null);
}
