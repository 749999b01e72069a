import type { EntityManager } from 'typeorm';
import { keyScope, type ThrottlePeriod } from '@baton/domain';
import { execute } from '../../engine-queries/sql';
import type { ThrottleKeyRef } from './lock-throttle-key';

/**
 * A throttled key's period after a decision (domain throttleDecision), on the row lockThrottleKey
 * locked in the same transaction:
 *
 *   UPDATE run_keys SET throttle_started_at = ?, throttle_count = ?, throttle_trailing_at = ?, rules_task_id = ?
 *    WHERE tenant_id = ? AND key_scope = 't:<taskId>' AND key_value = ?              -- primary key
 *
 * rules_task_id: the task whose throttle the retention purge reads to tell the period over.
 */
export async function storeThrottlePeriod(manager: EntityManager, ref: ThrottleKeyRef, period: ThrottlePeriod): Promise<void> {
  await execute(
    manager,
    'UPDATE run_keys SET throttle_started_at = ?, throttle_count = ?, throttle_trailing_at = ?, rules_task_id = ? WHERE tenant_id = ? AND key_scope = ? AND key_value = ?',
    [period.startedAt, period.count, period.trailingAt, ref.taskId, ref.tenantId, keyScope(ref.taskId), ref.key],
  );
}
