import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const RECORD_RUN_PROGRESS = runWrite('recordRunProgress', ['DISPATCHED', 'ACCEPTED'], 'same');

/**
 * An interim callback (no outcome): the attempt is still running; record its progress.
 *
 *   UPDATE runs SET progress = COALESCE(?, progress), started_at = COALESCE(started_at, ?), updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND state IN ('DISPATCHED', 'ACCEPTED')
 *
 * Guarded like an outcome: a report about an attempt that is over (or another tenant's run)
 * matches nothing, and the callback API answers 409 without storing its log lines or alarms.
 * Doubles as the "is this attempt live?" check of the interim callback, in one statement.
 */
export async function recordRunProgress(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; progress: number | null; startedAt: number | null; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET progress = COALESCE(?, progress), started_at = COALESCE(started_at, ?), updated_at = ?
      WHERE id = ? AND tenant_id = ? AND attempt = ? AND ${stateIn(RECORD_RUN_PROGRESS)}`,
    [input.progress, input.startedAt, input.now, input.runId, input.tenantId, input.attempt],
  );
  return affected > 0;
}
