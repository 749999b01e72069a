import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import type { RunKeyRef, StoredKeyBucket } from './lock-run-key';

/**
 * A key's token bucket after a take (domain takeKeyTokens), written holding lockRunKey:
 *
 *   UPDATE run_keys SET tokens_milli = ?, refilled_at = ? WHERE tenant_id = ? AND task_id = ? AND key_value = ?
 *
 * Thousandths of a token in an INT: a bucket holds at most 10,000 tokens (MAX_KEY_RATE), so
 * 10,000,000 — and a fraction below a thousandth, lost to the rounding down, is a refill of
 * under a millisecond at the fastest rate.
 */
export async function storeKeyBucket(manager: EntityManager, ref: RunKeyRef, bucket: StoredKeyBucket): Promise<void> {
  await execute(manager, 'UPDATE run_keys SET tokens_milli = ?, refilled_at = ? WHERE tenant_id = ? AND task_id = ? AND key_value = ?', [
    bucket.tokensMilli,
    bucket.refilledAt,
    ref.tenantId,
    ref.taskId,
    ref.key,
  ]);
}
