import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';
import type { SubmissionKeyRef } from './claim-submission-keys';

/**
 * Names the run a claimed idempotency key's submission got, before the claim commits:
 *
 *   UPDATE submission_keys SET run_id = ?, created_at = ? WHERE task_id = ? AND fire_key = ?   -- primary key
 *
 * The caller holds the key's row lock (claimSubmissionKeys): a key it took, or one whose run is
 * gone already (a task keeping its runs shorter than its tenant), which it takes again.
 * `runId` null: the throttle dropped the submission (a repeat is dropped too, not let through).
 * One statement per key: only submissions with a key to a windowed task come here.
 */
export async function recordSubmissionKey(manager: EntityManager, ref: SubmissionKeyRef, runId: number | null, now: number): Promise<void> {
  const { affected } = await execute(manager, 'UPDATE submission_keys SET run_id = ?, created_at = ? WHERE task_id = ? AND fire_key = ?', [runId, now, ref.taskId, ref.fireKey]);
  if (affected !== 1) throw new Error(`submission key ${ref.fireKey} of task ${ref.taskId} was not this transaction's to record`);
}
