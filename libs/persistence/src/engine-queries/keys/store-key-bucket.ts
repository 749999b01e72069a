import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import type { RunKeyRef, StoredKeyBucket } from './lock-run-key';

/**
 * A key's token bucket after a take (domain takeKeyTokens) by a run of task `taskId`, written
 * holding lockRunKey:
 *
 *   UPDATE run_keys SET tokens_milli = ?, refilled_at = ?, rules_task_id = ? WHERE tenant_id = ? AND key_scope = ? AND key_value = ?
 *
 * rules_task_id: whose rate the bucket now follows — the retention purge reads that task's rate to
 * tell the bucket refilled (a key group's row has no one task; each take is at its own task's rate).
 *
 * Thousandths of a token in an INT: a bucket holds at most 10,000 tokens (MAX_KEY_RATE), so
 * 10,000,000 — and a fraction below a thousandth, lost to the rounding down, is a refill of
 * under a millisecond at the fastest rate.
 */
export async function storeKeyBucket(manager: EntityManager, ref: RunKeyRef, bucket: StoredKeyBucket, taskId: number): Promise<void> {
  await execute(manager, 'UPDATE run_keys SET tokens_milli = ?, refilled_at = ?, rules_task_id = ? WHERE tenant_id = ? AND key_scope = ? AND key_value = ?', [
    bucket.tokensMilli,
    bucket.refilledAt,
    taskId,
    ref.tenantId,
    ref.scope,
    ref.key,
  ]);
}
