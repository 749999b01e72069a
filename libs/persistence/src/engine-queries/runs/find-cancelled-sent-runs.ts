import type { EntityManager } from 'typeorm';
import { execute, num, placeholders } from '../sql';
import { keepsSentMark } from '../../runs/sent-marks';

/** A cancelled run that had been sent, and where to: what its abort needs. */
export interface CancelledSentRun {
  runId: number;
  attempt: number;
  /** Its task (an XXL-JOB executor's abort is a kill of the task's job). */
  taskId: number;
  executorUrl: string;
  /** Its trace context (runs.trace_parent), for a log line about its abort; null: untraced. */
  traceParent: string | null;
  /** A withdrawn prepared fire whose executor has not said yet whether it started (runs.withdrawal UNSETTLED): its abort's answer may settle it. */
  unsettled: boolean;
}

/**
 * The runs of a console's cancel notice that an engine should have aborted at their executors:
 *
 *   SELECT r.id, r.attempt, r.task_id, e.url, r.trace_parent, r.withdrawal FROM runs r JOIN executors e ON e.id = r.executor_id
 *    WHERE r.tenant_id = ? AND r.id IN (…) AND r.state = 'CANCELLED' AND (r.dispatched_at IS NOT NULL OR r.executor_id IS NOT NULL)
 *
 * Primary-key lookups (at most MAX_CANCEL_NOTICE_RUNS ids). Sent, or maybe (keepsSentMark): a
 * run cancelled while PENDING after its dead engine had sent it, or after a dispatch that got no
 * answer, may be held at that executor, which would start it at its instant. The tenant is the notice's signer, so
 * a notice names only its own runs; a run that is not CANCELLED (the cancel lost a race with its
 * outcome) or was never sent is passed over — the notice is a hint, the row says what happened.
 */
export async function findCancelledSentRuns(manager: EntityManager, input: { tenantId: string; runIds: readonly number[] }): Promise<CancelledSentRun[]> {
  if (input.runIds.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.id, r.attempt, r.task_id, e.url, r.trace_parent, r.withdrawal FROM runs r JOIN executors e ON e.id = r.executor_id
      WHERE r.tenant_id = ? AND r.id IN (${placeholders(input.runIds.length)}) AND r.state = 'CANCELLED' AND ${keepsSentMark('r.')}`,
    [input.tenantId, ...input.runIds],
  );
  return rows.map((r) => ({
    runId: num(r.id),
    attempt: num(r.attempt),
    taskId: num(r.task_id),
    executorUrl: String(r.url),
    traceParent: (r.trace_parent as string | null) ?? null,
    unsettled: r.withdrawal === 'UNSETTLED',
  }));
}
