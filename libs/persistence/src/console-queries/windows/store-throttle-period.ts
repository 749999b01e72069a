import type { EntityManager } from 'typeorm';
import type { ThrottlePeriod } from '@baton/domain';
import { execute } from '../../engine-queries/sql';
import type { ThrottleKeyRef } from './lock-throttle-key';

/**
 * A throttled key's period after a decision (domain throttleDecision), on the row lockThrottleKey
 * locked in the same transaction:
 *
 *   UPDATE run_keys SET throttle_started_at = ?, throttle_count = ?, throttle_trailing_at = ?
 *    WHERE tenant_id = ? AND task_id = ? AND key_value = ?                            -- primary key
 */
export async function storeThrottlePeriod(manager: EntityManager, ref: ThrottleKeyRef, period: ThrottlePeriod): Promise<void> {
  await execute(
    manager,
    'UPDATE run_keys SET throttle_started_at = ?, throttle_count = ?, throttle_trailing_at = ? WHERE tenant_id = ? AND task_id = ? AND key_value = ?',
    [period.startedAt, period.count, period.trailingAt, ref.tenantId, ref.taskId, ref.key],
  );
}
