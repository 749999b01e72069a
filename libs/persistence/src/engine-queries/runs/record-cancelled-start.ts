import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const RECORD_CANCELLED_START = runWrite('recordCancelledStart', ['CANCELLED'], 'same');

/**
 * The start an executor reports for an attempt cancelled while it ran:
 *
 *   UPDATE runs SET started_at = ?, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND state IN ('CANCELLED')
 *      AND started_at IS NULL AND finished_at >= ?
 *
 * An attempt's start is written when its executor reports it (progress, or the outcome); the
 * outcome of a cancelled attempt (ABORTED) is stale, so the run it ran ended with no start. Only
 * the start is taken from it — the run stays CANCELLED at the cancel's time — and only a start
 * no later than that end (an executor's clock ahead would put the start after the cancel).
 */
export async function recordCancelledStart(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; startedAt: number; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET started_at = ?, updated_at = ?
      WHERE id = ? AND tenant_id = ? AND attempt = ? AND ${stateIn(RECORD_CANCELLED_START)} AND started_at IS NULL AND finished_at >= ?`,
    [input.startedAt, input.now, input.runId, input.tenantId, input.attempt, input.startedAt],
  );
  return affected > 0;
}
