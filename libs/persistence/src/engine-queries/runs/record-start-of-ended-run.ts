import type { EntityManager } from 'typeorm';
import { execute } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const RECORD_START_OF_ENDED_RUN = runWrite('recordStartOfEndedRun', ['CANCELLED', 'TIMED_OUT'], 'same');

/**
 * The start an executor reports for an attempt Baton ended while it ran (cancelled, or timed out
 * by the watchdog):
 *
 *   UPDATE runs SET started_at = ?, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND state IN ('CANCELLED', 'TIMED_OUT')
 *      AND started_at IS NULL AND finished_at >= ?
 *
 * An attempt's start is written when its executor reports it (progress, or the outcome); the
 * outcome of an attempt Baton ended (ABORTED) is stale, so the run it ran ended with no start —
 * a handler that ignores its abort reports only after the grace. Only the start is taken from it
 * — the run stays as it ended, at its end's time — and only a start no later than that end (an
 * executor's clock ahead would put the start after it).
 */
export async function recordStartOfEndedRun(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; startedAt: number; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET started_at = ?, updated_at = ?
      WHERE id = ? AND tenant_id = ? AND attempt = ? AND ${stateIn(RECORD_START_OF_ENDED_RUN)} AND started_at IS NULL AND finished_at >= ?`,
    [input.startedAt, input.now, input.runId, input.tenantId, input.attempt, input.startedAt],
  );
  return affected > 0;
}

/**
 * The start an executor reports for an attempt the watchdog timed out while it ran and the run
 * then retried (kept in run_attempts: the run row is the next attempt's, and stays as it is):
 *
 *   UPDATE run_attempts SET started_at = ?
 *    WHERE run_id = ? AND tenant_id = ? AND attempt = ? AND state = 'TIMED_OUT' AND started_at IS NULL AND finished_at >= ?
 *
 * As recordStartOfEndedRun: only a start no later than the attempt's end.
 */
export async function recordStartOfTimedOutAttempt(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; startedAt: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE run_attempts SET started_at = ?
      WHERE run_id = ? AND tenant_id = ? AND attempt = ? AND state = 'TIMED_OUT' AND started_at IS NULL AND finished_at >= ?`,
    [input.startedAt, input.runId, input.tenantId, input.attempt, input.startedAt],
  );
  return affected > 0;
}
